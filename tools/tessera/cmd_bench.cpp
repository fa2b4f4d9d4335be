// tessera bench: prefill and decode speed of a model on a backend (median of
// repeats), with decode read against the memory-bound limit of this machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "core/engine/session.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/json_writer.h"
#include "tools/tessera/memory_bandwidth.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {
namespace {

struct BenchFlags {
  RuntimeOptions runtime;
  int64_t prompt_tokens = 128, decode_tokens = 32, repeats = 3;
  bool json = false, no_bandwidth = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Bytes of weights a decode step reads: every weight a kernel reads whole, once;
// embedding tables read by get_rows contribute one row per token only.
uint64_t weight_bytes_per_token(const Graph& g, const WeightFile& w) {
  std::set<int> whole, rows;
  for (const GraphNode& n : g.nodes()) {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (g.tensor(n.inputs[k]).role != TensorRole::Weight) continue;
      (n.op == OpKind::GetRows && k == 0 ? rows : whole).insert(n.inputs[k]);
    }
  }
  uint64_t bytes = 0;
  for (int id : whole) bytes += w.find_tensor(g.tensor(id).file_name)->n_bytes;
  for (int id : rows) {
    if (whole.count(id)) continue;
    const TensorView* v = w.find_tensor(g.tensor(id).file_name);
    bytes += v->n_bytes / static_cast<uint64_t>(v->shape.at(0));
  }
  return bytes;
}

}  // namespace

int run_bench(const Args& args) {
  BenchFlags f;
  OptionTable t("bench", "-m MODEL [-p N] [-n N] [options]",
                "Measures prompt processing (prefill) and generation (decode) speed: median of repeats,\n"
                "after one warm-up run. Decode is compared with the memory-bound limit: measured read\n"
                "bandwidth / bytes of weights read per token.");
  f.runtime.add_to(t);
  t.integer("-p, --prompt-tokens", "N", "prompt tokens per run", &f.prompt_tokens, 1, 1 << 20)
      .integer("-n, --decode-tokens", "N", "generated tokens per run", &f.decode_tokens, 0, 1 << 20)
      .integer("-r, --repeats", "N", "measured runs", &f.repeats, 1, 1000)
      .flag("--no-bandwidth", "skip measuring the memory bandwidth", &f.no_bandwidth)
      .flag("--json", "print the results as one JSON object", &f.json);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};

  Runtime rt = load_runtime(f.runtime);
  SessionOptions so = f.runtime.session_options();
  so.n_ctx = std::max<int64_t>(so.n_ctx, f.prompt_tokens + f.decode_tokens);
  Session session(*rt.model, rt.backend, so);

  std::mt19937 rng(1234);
  const int32_t n_vocab = static_cast<int32_t>(session.n_vocab());
  std::vector<int32_t> prompt(static_cast<size_t>(f.prompt_tokens));
  for (auto& tok : prompt) tok = static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab));

  std::vector<double> prefill_tps, decode_tps;
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
    prefill_tps.push_back(static_cast<double>(f.prompt_tokens) / prefill_s);
    if (f.decode_tokens > 0) decode_tps.push_back(static_cast<double>(f.decode_tokens) / decode_s);
  }

  const uint64_t bytes_per_token = weight_bytes_per_token(rt.model->compiled().graph, rt.model->weights());
  const double bandwidth = f.no_bandwidth ? 0.0 : measure_read_bandwidth(uint64_t{1} << 30, 0, 3);
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
