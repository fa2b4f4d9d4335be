// tessera bench: prefill and decode speed of a model on a backend (median of
// repeats), with decode read against the memory-bound limit of this machine; with
// --concurrency, serving throughput, TTFT and TPOT of many requests batched together.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/engine_flags.h"
#include "tools/tessera/json_writer.h"
#include "tools/tessera/memory_bandwidth.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {
namespace {

struct BenchFlags {
  RuntimeOptions runtime;
  EngineFlags engine;
  int64_t prompt_tokens = 128, decode_tokens = 32, repeats = 3;
  int64_t concurrency = 0, requests = 0, shared_prefix = 0;
  bool json = false, no_bandwidth = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Nearest-rank percentile (p in [0, 100]) of a non-empty sample.
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(index, v.size() - 1)];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Bytes of weights a decode step reads: every weight a kernel reads whole, once;
// embedding tables read by get_rows contribute one row per token only, and the experts
// of a MOE_MATMUL the k of E that one token chooses.
uint64_t weight_bytes_per_token(const Graph& g, const WeightFile& w) {
  std::set<int> whole, rows;
  std::map<int, int64_t> chosen;  // experts [E, M, K] -> k
  for (const GraphNode& n : g.nodes()) {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (g.tensor(n.inputs[k]).role != TensorRole::Weight) continue;
      if (n.op == OpKind::MoeMatMul && k == 1) {
        chosen[n.inputs[k]] = g.tensor(n.inputs[2]).shape.at(1) / 2;  // route [Tokens, 2k]
        continue;
      }
      (n.op == OpKind::GetRows && k == 0 ? rows : whole).insert(n.inputs[k]);
    }
  }
  uint64_t bytes = 0;
  for (int id : whole) bytes += w.find_tensor(g.tensor(id).file_name)->n_bytes;
  for (const auto& [id, k] : chosen) {
    if (whole.count(id)) continue;
    const TensorView* v = w.find_tensor(g.tensor(id).file_name);
    bytes += v->n_bytes / static_cast<uint64_t>(v->shape.at(0)) * static_cast<uint64_t>(k);
  }
  for (int id : rows) {
    if (whole.count(id)) continue;
    const TensorView* v = w.find_tensor(g.tensor(id).file_name);
    bytes += v->n_bytes / static_cast<uint64_t>(v->shape.at(0));
  }
  return bytes;
}


// Random prompts of prompt_tokens ids; the first shared_prefix of them equal in all.
class PromptMaker {
 public:
  PromptMaker(const BenchFlags& f, int32_t n_vocab) : f_(f), n_vocab_(n_vocab), shared_(draw(f.shared_prefix)) {}
  std::vector<int32_t> next() {
    std::vector<int32_t> p = shared_;
    for (int32_t t : draw(f_.prompt_tokens - f_.shared_prefix)) p.push_back(t);
    return p;
  }
  // Shares nothing with the others (for the warm-up).
  std::vector<int32_t> unrelated() { return draw(f_.prompt_tokens); }

 private:
  std::vector<int32_t> draw(int64_t n) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    // Skip the control tokens at the start of the vocabulary.
    for (auto& t : v) t = 3 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(n_vocab_ - 3));
    return v;
  }
  const BenchFlags& f_;
  int32_t n_vocab_;
  std::mt19937 rng_{1234};
  std::vector<int32_t> shared_;
};

struct ServingReport {
  double wall_s = 0;
  int64_t generated = 0, prompt = 0;
  std::vector<double> ttft_ms, tpot_ms;
  EngineStats stats;
};

// Keeps `concurrency` requests in flight until `requests` have finished: a
// closed loop, like that many users each sending the next request when one ends.
ServingReport run_closed_loop(Engine& engine, PromptMaker& prompts, const BenchFlags& f, int64_t total) {
  ServingReport report;
  int64_t submitted = 0;
  std::function<void()> submit_one;
  auto on_event = [&](const RequestEvent& e) {
    if (!e.finished()) return;
    const RequestResult& r = *e.result;
    report.generated += static_cast<int64_t>(r.generated_ids.size());
    report.prompt += static_cast<int64_t>(r.prompt_ids.size());
    report.ttft_ms.push_back(r.ttft_ms);
    if (r.generated_ids.size() > 1) report.tpot_ms.push_back(r.tpot_ms());
    if (submitted < total) submit_one();
  };
  submit_one = [&] {
    Request r;
    r.prompt_ids = prompts.next();
    r.sampling.temperature = 0;
    r.max_tokens = static_cast<int32_t>(f.decode_tokens);
    r.stop.ignore_eos = true;
    r.on_event = on_event;
    engine.submit(std::move(r));
    ++submitted;
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < std::min(f.concurrency, total); ++i) submit_one();
  engine.run_until_idle();
  report.wall_s = seconds_since(t0);
  report.stats = engine.stats();
  return report;
}

void print_serving(const BenchFlags& f, const Runtime& rt, const Engine& engine, const ServingReport& r,
                   int64_t total) {
  const double out_tps = static_cast<double>(r.generated) / r.wall_s;
  const double all_tps = static_cast<double>(r.generated + r.prompt) / r.wall_s;
  auto med = [](const std::vector<double>& v) { return v.empty() ? 0.0 : percentile(v, 50); };
  auto p99 = [](const std::vector<double>& v) { return v.empty() ? 0.0 : percentile(v, 99); };
  const KvCacheConfig& kv = engine.kv_cache().config();
  if (f.json) {
    JsonWriter j;
    j.begin_object()
        .field("model", f.runtime.model)
        .field("backend", rt.backend.device->name())
        .field("concurrency", f.concurrency)
        .field("requests", total)
        .field("prompt_tokens", f.prompt_tokens)
        .field("decode_tokens", f.decode_tokens)
        .field("shared_prefix_tokens", f.shared_prefix)
        .field("wall_s", r.wall_s)
        .field("output_tokens_per_s", out_tps)
        .field("total_tokens_per_s", all_tps);
    j.key("ttft_ms").begin_object().field("median", med(r.ttft_ms)).field("p99", p99(r.ttft_ms)).end_object();
    j.key("tpot_ms").begin_object().field("median", med(r.tpot_ms)).field("p99", p99(r.tpot_ms)).end_object();
    j.field("kv_block", static_cast<int64_t>(kv.block_size))
        .field("kv_blocks_total", kv.n_blocks)
        .field("kv_waste_mean", r.stats.mean_waste_fraction)
        .field("kv_waste_max", r.stats.max_waste_fraction)
        .field("prefix_hit_rate", r.stats.kv.prefix_hit_rate)
        .field("preemptions", r.stats.preemptions)
        .field("steps", r.stats.steps)
        .field("mean_batch_sequences", r.stats.mean_batch_sequences)
        .end_object();
    std::printf("%s\n", j.str().c_str());
    return;
  }
  std::printf("model        %s on %s\n", f.runtime.model.c_str(), rt.backend.device->name().c_str());
  std::printf("requests     %lld at concurrency %lld: %lld prompt tokens (%lld shared) + %lld new each\n",
              static_cast<long long>(total), static_cast<long long>(f.concurrency),
              static_cast<long long>(f.prompt_tokens), static_cast<long long>(f.shared_prefix),
              static_cast<long long>(f.decode_tokens));
  std::printf("throughput   %.2f output tokens/s, %.2f tokens/s with prompts, in %.2f s\n", out_tps, all_tps,
              r.wall_s);
  std::printf("TTFT         median %.1f ms, p99 %.1f ms\n", med(r.ttft_ms), p99(r.ttft_ms));
  std::printf("TPOT         median %.1f ms, p99 %.1f ms\n", med(r.tpot_ms), p99(r.tpot_ms));
  std::printf("batches      %lld steps of %.1f sequences, %lld preemption(s)\n",
              static_cast<long long>(r.stats.steps), r.stats.mean_batch_sequences,
              static_cast<long long>(r.stats.preemptions));
  std::printf("KV cache     %lld blocks of %d tokens (%s), waste mean %.2f%% max %.2f%%, prefix cache hits %.1f%%\n",
              static_cast<long long>(kv.n_blocks), kv.block_size,
              format_bytes(kv.budget_bytes()).c_str(),
              100.0 * r.stats.mean_waste_fraction, 100.0 * r.stats.max_waste_fraction,
              100.0 * r.stats.kv.prefix_hit_rate);
}

int run_serving_bench(const BenchFlags& f) {
  if (f.shared_prefix > f.prompt_tokens) {
    throw UsageError{"--shared-prefix " + std::to_string(f.shared_prefix) + " is longer than the prompt (-p " +
                     std::to_string(f.prompt_tokens) + ")"};
  }
  if (f.decode_tokens < 1) throw UsageError{"--concurrency needs at least one generated token (-n)"};
  const int64_t total = f.requests > 0 ? f.requests : 2 * f.concurrency;
  Runtime rt = load_runtime(f.runtime);
  const int64_t n_ctx = std::max<int64_t>(f.runtime.ctx, f.prompt_tokens + f.decode_tokens);
  // By default every request in flight fits at once: nothing is preempted.
  const int64_t auto_tokens =
      f.concurrency * (kv_tokens_of(f.prompt_tokens, f.decode_tokens, n_ctx, f.runtime.kv_block) + f.runtime.kv_block);
  EngineOptions eo = f.engine.engine_options(f.runtime, auto_tokens);
  eo.n_ctx = n_ctx;
  Engine engine(*rt.model, rt.backend, eo);
  log_placement(engine.executor());
  PromptMaker prompts(f, static_cast<int32_t>(rt.model->compiled().n_vocab));

  // Warm-up: one short request sharing nothing with the measured ones.
  Request warm;
  warm.prompt_ids = prompts.unrelated();
  warm.sampling.temperature = 0;
  warm.max_tokens = 2;
  engine.submit(std::move(warm));
  engine.run_until_idle();
  engine.reset_stats();
  const ServingReport report = run_closed_loop(engine, prompts, f, total);
  print_serving(f, rt, engine, report, total);
  return 0;
}

}  // namespace

int run_bench(const Args& args) {
  BenchFlags f;
  OptionTable t("bench", "-m MODEL [-p N] [-n N] [--concurrency N] [options]",
                "Measures prompt processing (prefill) and generation (decode) speed: median of repeats,\n"
                "after one warm-up run. Decode is compared with the memory-bound limit: measured read\n"
                "bandwidth (the best of samples taken after each run) / bytes of weights read per token.\n"
                "With --concurrency N: N requests in flight at once through the batching engine, each\n"
                "replaced by a new one when it ends; reports throughput, TTFT and TPOT (median, p99),\n"
                "KV cache waste and the prefix cache hit rate.");
  f.runtime.add_to(t);
  f.engine.add_to(t);
  t.integer("-p, --prompt-tokens", "N", "prompt tokens per run", &f.prompt_tokens, 1, 1 << 20)
      .integer("-n, --decode-tokens", "N", "generated tokens per run", &f.decode_tokens, 0, 1 << 20)
      .integer("-r, --repeats", "N", "measured runs", &f.repeats, 1, 1000)
      .integer("--concurrency", "N", "requests in flight at once; 0 = one sequence, prefill and decode apart",
               &f.concurrency, 0, 1 << 16)
      .integer("--requests", "N", "requests measured with --concurrency; 0 = twice the concurrency", &f.requests, 0,
               1 << 24)
      .integer("--shared-prefix", "N", "with --concurrency: the first N prompt tokens are equal in every request",
               &f.shared_prefix, 0, 1 << 20)
      .flag("--no-bandwidth", "skip measuring the memory bandwidth", &f.no_bandwidth)
      .flag("--json", "print the results as one JSON object", &f.json);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  if (f.concurrency > 0) return run_serving_bench(f);

  Runtime rt = load_runtime(f.runtime);
  SessionOptions so = f.runtime.session_options();
  so.n_ctx = std::max<int64_t>(so.n_ctx, f.prompt_tokens + f.decode_tokens);
  Session session(*rt.model, rt.backend, so);
  log_placement(session.executor());

  std::mt19937 rng(1234);
  const int32_t n_vocab = static_cast<int32_t>(session.n_vocab());
  std::vector<int32_t> prompt(static_cast<size_t>(f.prompt_tokens));
  for (auto& tok : prompt) tok = static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab));

  std::vector<double> prefill_tps, decode_tps;
  // The read bandwidth, best of one sample after each timed run rather than one sample at
  // the end: on a shared machine it moves from one second to the next (a 2-core virtual
  // machine read 31 GB/s in one sample and 61 in the next), and a single sample taken in
  // a slow second put the bound below what decode had just reached. The buffer is
  // allocated per sample, so the timed runs never share the memory with it.
  double bandwidth = 0.0;
  for (int64_t r = 0; r <= f.repeats; ++r) {  // run 0 warms up
    session.reset();
    auto t0 = std::chrono::steady_clock::now();
    const std::vector<float>* logits = &session.feed(prompt);
    const double prefill_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < f.decode_tokens; ++i) {
      const int32_t next = static_cast<int32_t>(std::max_element(logits->begin(), logits->end()) - logits->begin());
      logits = &session.feed(std::span<const int32_t>(&next, 1));
    }
    const double decode_s = seconds_since(t0);
    if (r == 0) continue;
    if (!f.no_bandwidth) bandwidth = std::max(bandwidth, measure_read_bandwidth(uint64_t{1} << 30, 0, 3));
    prefill_tps.push_back(static_cast<double>(f.prompt_tokens) / prefill_s);
    if (f.decode_tokens > 0) decode_tps.push_back(static_cast<double>(f.decode_tokens) / decode_s);
  }

  const uint64_t bytes_per_token = weight_bytes_per_token(rt.model->compiled().graph, rt.model->weights());
  const double bound = bandwidth > 0 ? bandwidth / static_cast<double>(bytes_per_token) : 0.0;
  const double prefill = median(prefill_tps);
  const double decode = decode_tps.empty() ? 0.0 : median(decode_tps);

  if (f.json) {
    JsonWriter j;
    j.begin_object()
        .field("model", f.runtime.model)
        .field("backend", rt.backend.device->name())
        .field("prompt_tokens", f.prompt_tokens)
        .field("decode_tokens", f.decode_tokens)
        .field("repeats", f.repeats)
        .field("prefill_tokens_per_s", prefill)
        .field("decode_tokens_per_s", decode)
        .field("weight_bytes_per_token", static_cast<int64_t>(bytes_per_token))
        .field("read_bandwidth_bytes_per_s", bandwidth)
        .field("decode_bound_tokens_per_s", bound)
        .end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  std::printf("model    %s on %s\n", f.runtime.model.c_str(), rt.backend.device->name().c_str());
  std::printf("prefill  %lld tokens: %.2f tokens/s (median of %lld)\n", static_cast<long long>(f.prompt_tokens),
              prefill, static_cast<long long>(f.repeats));
  std::printf("decode   %lld tokens: %.2f tokens/s (median of %lld)\n", static_cast<long long>(f.decode_tokens),
              decode, static_cast<long long>(f.repeats));
  std::printf("weights  %.1f MiB read per decoded token\n", static_cast<double>(bytes_per_token) / (1 << 20));
  if (bandwidth > 0) {
    std::printf("memory   %.2f GB/s read bandwidth -> decode bound %.2f tokens/s; reached %.0f%%\n",
                bandwidth / 1e9, bound, 100.0 * decode / bound);
  }
  return 0;
}

}  // namespace tessera::cli
