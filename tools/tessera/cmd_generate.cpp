// tessera generate: runs every prompt together through the batching engine and
// prints each continuation in prompt order (logs and timings to stderr), or one
// JSON object per prompt with --json.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "core/engine/engine.h"
#include "core/util/error.h"
#include "core/util/text_file.h"
#include "tools/tessera/backend_swaps.h"
#include "tools/tessera/chat_flags.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/engine_flags.h"
#include "tools/tessera/json_writer.h"
#include "tools/tessera/runtime_options.h"
#include "tools/tessera/sampling_flags.h"

namespace tessera::cli {
namespace {

struct GenerateFlags {
  RuntimeOptions runtime;
  EngineFlags engine;
  std::vector<std::string> prompts;
  std::string prompt_file;
  std::string swap_at;
  std::string swap_kv_mem;
  std::string swap_kv_dtype;
  SamplingFlags sampling;
  ChatFlags chat;
  int64_t n_predict = 128;
  bool json = false, ignore_eos = false, verbose = false;
};

OptionTable generate_options(GenerateFlags& f) {
  OptionTable t("generate", "-m MODEL -p PROMPT [-p PROMPT ...] [options]",
                "Generates a continuation of each prompt. Several prompts run together (continuous\n"
                "batching); each one's output is printed in prompt order, the first unfinished one\n"
                "streaming as it is generated.");
  f.runtime.add_to(t);
  f.engine.add_to(t);
  t.texts("-p, --prompt", "TEXT", "prompt; repeat for several prompts (run together)", &f.prompts)
      .text("--prompts", "FILE", "file with one prompt per line", &f.prompt_file)
      .integer("-n, --n-predict", "N", "new tokens per prompt", &f.n_predict, 0, 1 << 24);
  f.sampling.add_to(t);
  t.flag("--chat", "apply the model's chat template to each prompt (a user message) and stop at the end of "
         "the answer", &f.chat.enabled);
  f.chat.add_to(t);
  t.flag("--ignore-eos", "keep generating after an end-of-text token", &f.ignore_eos)
      .flag("--json", "print one JSON object per prompt instead of streaming text", &f.json)
      .text("--swap-at", "N:BACKEND[,...]",
            "move the running generation to BACKEND once N tokens are generated (e.g. 16:vulkan,48:cpu)",
            &f.swap_at)
      .text("--swap-kv-mem", "SIZE",
            "KV cache budget on each --swap-at target, as --kv-mem (fewer blocks than in use preempt the "
            "newest requests); default: the same blocks, or --kv-mem's fraction of the target's memory",
            &f.swap_kv_mem)
      .text("--swap-kv-dtype", "TYPE", "KV cache element type on each --swap-at target: f32, f16 or int8 (the rows "
            "are converted); default: as now", &f.swap_kv_dtype)
      .text("--verify", "BACKEND",
            "also run every op on BACKEND (its own kernels, no kernel plugins) with the same inputs and stop at "
            "the first whose output differs beyond its tolerance",
            &f.runtime.verify)
      .flag("-v, --verbose", "log each --swap-at move: its time, parts and what it copied", &f.verbose);
  return t;
}

constexpr uint64_t kMaxPromptsBytes = uint64_t{64} << 20;

std::vector<std::string> collect_prompts(const GenerateFlags& f) {
  std::vector<std::string> prompts = f.prompts;
  if (!f.prompt_file.empty()) {
    std::istringstream in(read_text_file(f.prompt_file, kMaxPromptsBytes, "a prompts file"));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) prompts.push_back(line);
    }
  }
  if (prompts.empty()) throw UsageError{"no prompt given: pass -p TEXT or --prompts FILE"};
  return prompts;
}

// Prints each prompt's output in prompt order: the first unfinished prompt streams
// live, the ones after it are held until it finishes.
class OrderedPrinter {
 public:
  // `echo_prompt`: each output starts with its prompt (not for chat, whose prompt is a question).
  OrderedPrinter(std::vector<std::string> prompts, bool json, bool echo_prompt)
      : json_(json), echo_prompt_(echo_prompt), slots_(prompts.size()) {
    for (size_t i = 0; i < prompts.size(); ++i) slots_[i].prompt = std::move(prompts[i]);
  }

  // Called on the engine's stepping thread with the events of prompt `index`.
  void on_event(size_t index, const RequestEvent& e) {
    Slot& slot = slots_[index];
    slot.text += e.text;
    if (e.finished()) slot.result = e.result;
    if (index == next_ && !json_) write(e.text);
    while (next_ < slots_.size() && slots_[next_].result) {
      finish_slot(slots_[next_]);
      if (++next_ < slots_.size() && !json_) start_slot(slots_[next_]);
    }
  }

  void begin() {
    if (!slots_.empty() && !json_) start_slot(slots_[0]);
  }

 private:
  struct Slot {
    std::string prompt;
    std::string text;  // what the engine has streamed so far
    std::shared_ptr<const RequestResult> result;
  };

  static void write(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  void start_slot(const Slot& slot) { write(echo_prompt_ ? slot.prompt + slot.text : slot.text); }
  void finish_slot(const Slot& slot) {
    if (json_) {
      print_json(slot.prompt, *slot.result);
    } else {
      write("\n");
    }
    print_timings(*slot.result);
  }
  static void print_json(const std::string& prompt, const RequestResult& r);
  static void print_timings(const RequestResult& r);

  bool json_;
  bool echo_prompt_;
  std::vector<Slot> slots_;
  size_t next_ = 0;
};

double decode_ms(const RequestResult& r) { return r.total_ms - r.ttft_ms; }
double decode_tokens(const RequestResult& r) {
  return r.generated_ids.size() > 1 ? static_cast<double>(r.generated_ids.size() - 1) : 0.0;
}
double per_second(double count, double ms) { return ms > 0 ? count * 1e3 / ms : 0.0; }

void OrderedPrinter::print_json(const std::string& prompt, const RequestResult& r) {
  JsonWriter j;
  j.begin_object()
      .field("prompt", prompt)
      .field("prompt_ids", r.prompt_ids)
      .field("generated_ids", r.generated_ids)
      .field("text", r.text)
      .field("stop_reason", finish_reason_name(r.finish))
      .field("seed", static_cast<int64_t>(r.seed))
      .field("cached_prompt_tokens", r.cached_prompt_tokens)
      .field("preemptions", static_cast<int64_t>(r.preemptions));
  if (r.finish == FinishReason::Error) j.field("error", r.error);
  // prefill_ms runs from submission to the first token (the TTFT, queueing included).
  j.key("timings")
      .begin_object()
      .field("prefill_ms", r.ttft_ms)
      .field("decode_ms", decode_ms(r))
      .field("prefill_tokens_per_s", per_second(static_cast<double>(r.prompt_ids.size()), r.ttft_ms))
      .field("decode_tokens_per_s", per_second(decode_tokens(r), decode_ms(r)))
      .end_object()
      .end_object();
  std::printf("%s\n", j.str().c_str());
  std::fflush(stdout);
}

void OrderedPrinter::print_timings(const RequestResult& r) {
  std::fprintf(stderr,
               "tessera: prompt %zu tokens (%lld cached), first token after %.1f ms (%.1f tok/s), generated %zu "
               "tokens in %.1f ms (%.1f tok/s), stop: %s, seed %llu\n",
               r.prompt_ids.size(), static_cast<long long>(r.cached_prompt_tokens), r.ttft_ms,
               per_second(static_cast<double>(r.prompt_ids.size()), r.ttft_ms), r.generated_ids.size(), decode_ms(r),
               per_second(decode_tokens(r), decode_ms(r)), std::string(finish_reason_name(r.finish)).c_str(),
               static_cast<unsigned long long>(r.seed));
  if (r.finish == FinishReason::Error) std::fprintf(stderr, "tessera: error: this prompt failed: %s\n", r.error.c_str());
}

void print_summary(const Engine& engine, size_t n_prompts, double seconds) {
  const EngineStats s = engine.stats();
  const KvCacheConfig& kv = engine.kv_cache().config();
  std::fprintf(stderr,
               "tessera: %zu prompt(s) in %.2f s, %lld steps of %.1f sequences, %.1f generated tok/s; KV cache %lld "
               "blocks of %d tokens (%s), mean waste %.1f%%, prefix cache hits %.1f%%, %lld preemption(s)\n",
               n_prompts, seconds, static_cast<long long>(s.steps), s.mean_batch_sequences,
               seconds > 0 ? static_cast<double>(s.tokens_generated) / seconds : 0.0,
               static_cast<long long>(kv.n_blocks), kv.block_size,
               format_bytes(kv.budget_bytes()).c_str(),
               100.0 * s.mean_waste_fraction, 100.0 * s.kv.prefix_hit_rate, static_cast<long long>(s.preemptions));
  if (const VerifyReport* v = engine.executor().verify_report()) {
    std::fprintf(stderr, "tessera: verify: %lld step(s), %lld op outputs agreed with %s%s",
                 static_cast<long long>(v->steps), static_cast<long long>(v->ops), v->reference.c_str(),
                 s.migrations > 0 ? " since the last move" : "");
    if (!v->worst.empty()) {
      std::fprintf(stderr, "; closest to its tolerance (%.0f%%): %s", 100.0 * v->worst_ratio, v->worst.c_str());
    }
    std::fprintf(stderr, "\n");
    if (!v->first_non_finite.empty()) {
      std::fprintf(stderr, "tessera: verify: first non-finite value: %s\n", v->first_non_finite.c_str());
    }
  }
  if (s.migrations > 0) {
    std::fprintf(stderr, "tessera: moved %lld time(s), ending on %s\n", static_cast<long long>(s.migrations),
                 engine.executor().device().name().c_str());
  }
}

// How the KV cache is sized on a --swap-at target: --swap-kv-mem, else a --kv-mem
// fraction taken of the target's memory, else nullopt (the same blocks).
std::optional<KvBudget> swap_kv_budget(const GenerateFlags& f) {
  const std::string& text = f.swap_kv_mem.empty() ? f.engine.kv_mem : f.swap_kv_mem;
  if (text.empty()) return std::nullopt;
  KvBudget budget;
  try {
    budget = parse_kv_budget(text);
  } catch (const Error& e) {
    throw UsageError{std::string(f.swap_kv_mem.empty() ? "--kv-mem: " : "--swap-kv-mem: ") + e.what()};
  }
  if (f.swap_kv_mem.empty() && budget.kind != KvBudget::Kind::DeviceFraction) return std::nullopt;
  return budget;
}

}  // namespace

int run_generate(const Args& args) {
  GenerateFlags f;
  OptionTable table = generate_options(f);
  const auto positional = table.parse(args);
  if (table.help_requested()) {
    std::printf("%s", table.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  const std::vector<std::string> prompts = collect_prompts(f);

  const SamplingParams sampling = f.sampling.params();
  if (!f.chat.enabled && (!f.chat.template_name.empty() || !f.chat.system.empty())) {
    throw UsageError{"--chat-template and --system need --chat"};
  }

  const std::vector<SwapPoint> swap_points = f.swap_at.empty() ? std::vector<SwapPoint>{} : parse_swap_points(f.swap_at);
  MigrationOptions swap_options;
  swap_options.kv_budget = swap_kv_budget(f);
  if (!f.swap_kv_dtype.empty()) {
    try {
      swap_options.kv_dtype = parse_kv_dtype(f.swap_kv_dtype);
    } catch (const UsageError& e) {
      throw UsageError{"--swap-kv-dtype: " + e.message};
    }
  }
  for (const SwapPoint& p : swap_points) f.runtime.more_backends.push_back(p.backend);
  Runtime rt = load_runtime(f.runtime);
  BackendSwaps swaps(*rt.host, swap_points, f.runtime.backend, rt.backend, rt.model->compiled().graph, f.runtime,
                     swap_options, f.verbose);
  const Tokenizer& tokenizer = rt.model->tokenizer();
  std::optional<chat::ChatFormat> format;
  if (f.chat.enabled) format.emplace(chat_format_of(*rt.model, f.chat.template_name));
  std::vector<std::vector<int32_t>> prompt_ids;
  int64_t longest = 0;
  for (const std::string& p : prompts) {
    prompt_ids.push_back(format ? format->prompt_ids(f.chat.conversation(p)) : tokenizer.encode(p, tokenizer.add_bos()));
    longest = std::max<int64_t>(longest, static_cast<int64_t>(prompt_ids.back().size()));
  }
  const int64_t model_ctx = rt.model->compiled().n_ctx > 0 ? rt.model->compiled().n_ctx : 2048;
  int64_t n_ctx = f.runtime.ctx > 0 ? f.runtime.ctx : model_ctx;
  if (f.runtime.ctx == 0 && longest + f.n_predict > model_ctx) {
    // Room for the longest prompt and its continuation, at least the model's context.
    std::fprintf(stderr, "tessera: warning: %lld tokens exceed the model's context of %lld; extending it\n",
                 static_cast<long long>(longest + f.n_predict), static_cast<long long>(model_ctx));
    n_ctx = longest + f.n_predict;
  }
  // By default the cache holds every prompt and its continuation at once: nothing is preempted.
  int64_t auto_tokens = 0;
  for (const auto& ids : prompt_ids) {
    auto_tokens += kv_tokens_of(static_cast<int64_t>(ids.size()), f.n_predict, n_ctx, f.runtime.kv_block);
  }
  EngineOptions eo = f.engine.engine_options(f.runtime, auto_tokens);
  eo.n_ctx = n_ctx;
  Engine engine(*rt.model, rt.backend, eo);
  log_placement(engine.executor());

  OrderedPrinter printer(prompts, f.json, !f.chat.enabled);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < prompts.size(); ++i) {
    Request r;
    r.prompt_ids = prompt_ids[i];
    if (r.prompt_ids.empty()) throw Error("the prompt is empty and the vocabulary has no BOS token to start from");
    r.sampling = sampling;
    r.max_tokens = static_cast<int32_t>(f.n_predict);
    r.stop.ignore_eos = f.ignore_eos;
    if (format) r.stop.stop_token_ids = format->stop_tokens();
    r.on_event = [&printer, i](const RequestEvent& e) { printer.on_event(i, e); };
    engine.submit(std::move(r));
  }
  printer.begin();
  engine.run_until_idle([&swaps, &engine] { swaps.before_step(engine); });
  print_summary(engine, prompts.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (const int64_t failed = engine.stats().requests_failed; failed > 0) {
    std::fprintf(stderr, "tessera: error: %lld of %zu prompt(s) failed (the others finished)\n",
                 static_cast<long long>(failed), prompts.size());
    return 1;
  }
  return 0;
}

}  // namespace tessera::cli
