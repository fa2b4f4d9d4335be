// tessera generate: streams the continuation of each prompt to stdout (logs and
// timings to stderr), or prints one JSON object per prompt with --json.
#include <cstdio>
#include <fstream>
#include <limits>

#include "core/engine/generator.h"
#include "core/util/error.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/json_writer.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {
namespace {

struct GenerateFlags {
  RuntimeOptions runtime;
  std::vector<std::string> prompts;
  std::string prompt_file;
  int64_t n_predict = 128;
  double temperature = 0.8, top_p = 0.95, min_p = 0.05, repeat_penalty = 1.0;
  int64_t top_k = 40, repeat_last_n = 64, seed = 0;
  bool json = false, ignore_eos = false;
};

OptionTable generate_options(GenerateFlags& f) {
  OptionTable t("generate", "-m MODEL -p PROMPT [options]",
                "Generates a continuation of each prompt and streams it to stdout.");
  f.runtime.add_to(t);
  t.texts("-p, --prompt", "TEXT", "prompt; repeat for several prompts (run one after the other)", &f.prompts)
      .text("--prompts", "FILE", "file with one prompt per line", &f.prompt_file)
      .integer("-n, --n-predict", "N", "new tokens per prompt", &f.n_predict, 0, 1 << 24)
      .number("--temp", "T", "temperature; 0 = greedy", &f.temperature, 0, 100)
      .integer("--top-k", "K", "keep the K most likely tokens; 0 = off", &f.top_k, 0, 1 << 24)
      .number("--top-p", "P", "nucleus sampling threshold; 1 = off", &f.top_p, 0, 1)
      .number("--min-p", "P", "drop tokens below P x the most likely one; 0 = off", &f.min_p, 0, 1)
      .number("--repeat-penalty", "X", "repetition penalty; 1 = off", &f.repeat_penalty, 0, 100)
      .integer("--repeat-last-n", "N", "tokens the penalty looks back over", &f.repeat_last_n, 0, 1 << 24)
      .integer("-s, --seed", "N", "sampling seed; 0 = random (printed)", &f.seed, 0,
               std::numeric_limits<int64_t>::max())
      .flag("--ignore-eos", "keep generating after an end-of-text token", &f.ignore_eos)
      .flag("--json", "print one JSON object per prompt instead of streaming text", &f.json);
  return t;
}

std::vector<std::string> collect_prompts(const GenerateFlags& f) {
  std::vector<std::string> prompts = f.prompts;
  if (!f.prompt_file.empty()) {
    std::ifstream in(f.prompt_file);
    if (!in) throw Error(f.prompt_file + ": cannot open the prompts file");
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) prompts.push_back(line);
    }
  }
  if (prompts.empty()) throw UsageError{"no prompt given: pass -p TEXT or --prompts FILE"};
  return prompts;
}

void print_json(const std::string& prompt, const GenerateResult& r) {
  JsonWriter j;
  j.begin_object()
      .field("prompt", prompt)
      .field("prompt_ids", r.prompt_ids)
      .field("generated_ids", r.generated_ids)
      .field("text", r.text)
      .field("stop_reason", r.stop_reason)
      .field("seed", static_cast<int64_t>(r.seed));
  j.key("timings").begin_object().field("prefill_ms", r.prefill_ms).field("decode_ms", r.decode_ms);
  const double decode_tokens = r.generated_ids.size() > 1 ? static_cast<double>(r.generated_ids.size() - 1) : 0.0;
  j.field("prefill_tokens_per_s", r.prefill_ms > 0 ? static_cast<double>(r.prompt_ids.size()) * 1e3 / r.prefill_ms : 0.0)
      .field("decode_tokens_per_s", r.decode_ms > 0 ? decode_tokens * 1e3 / r.decode_ms : 0.0)
      .end_object()
      .end_object();
  std::printf("%s\n", j.str().c_str());
  std::fflush(stdout);
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

  GenerateOptions options;
  options.n_predict = static_cast<int32_t>(f.n_predict);
  options.ignore_eos = f.ignore_eos;
  options.sampling.temperature = static_cast<float>(f.temperature);
  options.sampling.top_k = static_cast<int32_t>(f.top_k);
  options.sampling.top_p = static_cast<float>(f.top_p);
  options.sampling.min_p = static_cast<float>(f.min_p);
  options.sampling.repetition_penalty = static_cast<float>(f.repeat_penalty);
  options.sampling.repeat_last_n = static_cast<int32_t>(f.repeat_last_n);
  options.sampling.seed = static_cast<uint64_t>(f.seed);
  options.sampling.validate();

  Runtime rt = load_runtime(f.runtime);
  SessionOptions so = f.runtime.session_options();
  if (so.n_ctx == 0) {
    // Room for the longest prompt and its continuation, at least the model's context.
    int64_t needed = 0;
    for (const auto& p : prompts) {
      needed = std::max<int64_t>(needed, static_cast<int64_t>(rt.model->tokenizer().encode(p, true).size()));
    }
    needed += f.n_predict;
    if (needed > rt.model->compiled().n_ctx) {
      std::fprintf(stderr, "tessera: warning: %lld tokens exceed the model's context of %lld; extending it\n",
                   static_cast<long long>(needed), static_cast<long long>(rt.model->compiled().n_ctx));
      so.n_ctx = needed;
    }
  }
  Session session(*rt.model, rt.backend, so);

  for (const std::string& prompt : prompts) {
    GenerateResult r;
    if (f.json) {
      r = generate(session, rt.model->tokenizer(), prompt, options);
      print_json(prompt, r);
    } else {
      std::fputs(prompt.c_str(), stdout);
      std::fflush(stdout);
      r = generate(session, rt.model->tokenizer(), prompt, options, [](const std::string& piece) {
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
      });
      std::fputs("\n", stdout);
      std::fflush(stdout);
    }
    const double decode_tokens = r.generated_ids.size() > 1 ? static_cast<double>(r.generated_ids.size() - 1) : 0.0;
    std::fprintf(stderr,
                 "tessera: prompt %zu tokens in %.1f ms (%.1f tok/s), generated %zu tokens in %.1f ms "
                 "(%.1f tok/s), stop: %s, seed %llu\n",
                 r.prompt_ids.size(), r.prefill_ms,
                 r.prefill_ms > 0 ? static_cast<double>(r.prompt_ids.size()) * 1e3 / r.prefill_ms : 0.0,
                 r.generated_ids.size(), r.decode_ms, r.decode_ms > 0 ? decode_tokens * 1e3 / r.decode_ms : 0.0,
                 r.stop_reason.c_str(), static_cast<unsigned long long>(r.seed));
  }
  return 0;
}

}  // namespace tessera::cli
