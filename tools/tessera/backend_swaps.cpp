#include "tools/tessera/backend_swaps.h"

#include <cstdio>
#include <cstdlib>

#include "core/util/error.h"
#include "core/util/format_bytes.h"
#include "tools/tessera/options.h"

namespace tessera::cli {

std::vector<SwapPoint> parse_swap_points(const std::string& text) {
  std::vector<SwapPoint> points;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = entry.find(':');
    char* end = nullptr;
    const long long n = colon == std::string::npos ? -1 : std::strtoll(entry.c_str(), &end, 10);
    if (colon == std::string::npos || colon == 0 || end != entry.c_str() + colon || n < 0 ||
        colon + 1 == entry.size()) {
      throw UsageError{"--swap-at expects N:BACKEND[,N:BACKEND...] with N >= 0 tokens (e.g. 32:vulkan), got '" +
                       entry + "'"};
    }
    if (!points.empty() && n <= points.back().after_tokens) {
      throw UsageError{"--swap-at: the token counts must increase, but " + std::to_string(n) + " follows " +
                       std::to_string(points.back().after_tokens)};
    }
    points.push_back({n, entry.substr(colon + 1)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return points;
}

BackendSwaps::BackendSwaps(PluginHost& host, std::vector<SwapPoint> points, const std::string& current_spec,
                           const Backend& current, const Graph& graph, const RuntimeOptions& runtime,
                           MigrationOptions options, bool verbose)
    : points_(std::move(points)), current_spec_(current_spec), first_(current), first_spec_(current_spec),
      options_(options), verbose_(verbose) {
  for (const SwapPoint& p : points_) {
    if (p.backend == first_spec_ || opened_.count(p.backend)) continue;
    try {
      Backend b = open_cli_backend(host, p.backend, static_cast<int32_t>(runtime.threads));
      attach_fallback(b, host, graph, runtime);
      b.reference = current.reference;  // verify mode follows the run
      opened_.emplace(p.backend, std::move(b));
    } catch (const Error& e) {
      throw Error(std::string("--swap-at ") + std::to_string(p.after_tokens) + ":" + p.backend + ": " + e.what());
    }
  }
}

void BackendSwaps::before_step(Engine& engine) {
  if (next_ >= points_.size()) return;
  const SwapPoint& p = points_[next_];
  const int64_t generated = engine.stats().tokens_generated;
  if (generated < p.after_tokens) return;
  ++next_;
  if (p.backend == current_spec_) return;  // already there
  const Backend& target = p.backend == first_spec_ ? first_ : opened_.at(p.backend);
  try {
    const MigrationReport r = engine.migrate(target, options_);
    current_spec_ = p.backend;
    log_placement(engine.executor());
    if (verbose_) {
      std::fprintf(stderr,
                   "tessera: moved from %s to %s after %lld tokens in %.1f ms: %lld running and %lld waiting "
                   "request(s) (%lld preempted), %lld KV block(s) (%s) copied in %.1f ms into a cache of %lld %s, "
                   "weights (%s) and cache placed in %.1f ms\n",
                   r.from.c_str(), r.to.c_str(), static_cast<long long>(generated), r.total_ms,
                   static_cast<long long>(r.running), static_cast<long long>(r.waiting),
                   static_cast<long long>(r.preempted),
                   static_cast<long long>(r.kv_blocks), format_bytes(static_cast<double>(r.kv_bytes)).c_str(),
                   r.copy_ms, static_cast<long long>(r.cache_blocks), std::string(dtype_name(r.kv_dtype)).c_str(),
                   format_bytes(static_cast<double>(r.weight_bytes)).c_str(), r.place_ms);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "tessera: warning: --swap-at %lld:%s refused: %s\n", static_cast<long long>(p.after_tokens),
                 p.backend.c_str(), e.what());
  }
}

}  // namespace tessera::cli
