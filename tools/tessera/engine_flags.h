// The options of the commands that run requests through the batching Engine
// (generate, bench --concurrency): KV memory budget, batch and step limits.
#pragma once

#include <cstdint>
#include <string>

#include "core/engine/engine.h"
#include "core/util/error.h"
#include "tools/tessera/options.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

struct EngineFlags {
  std::string kv_mem;  // empty: sized by the command for its requests
  int64_t max_batch = 64;
  int64_t max_tokens_per_step = 512;
  bool no_prefix_cache = false;

  void add_to(OptionTable& t) {
    t.text("--kv-mem", "SIZE",
           "KV cache budget: bytes (512M, 2G, 4096B) or a fraction of the device memory left after the weights "
           "(0.5, 50%, 100%); default: room for every request at once",
           &kv_mem)
        .integer("--max-batch", "N", "sequences in the KV cache (and in a step) at once", &max_batch, 1, 1 << 16)
        .integer("--max-tokens-per-step", "N", "tokens per step; longer prompts are prefilled in chunks",
                 &max_tokens_per_step, 1, 1 << 20)
        .flag("--no-prefix-cache", "do not reuse the KV blocks of equal prompt heads", &no_prefix_cache);
  }

  // `auto_tokens`: the budget in tokens when --kv-mem is absent.
  EngineOptions engine_options(const RuntimeOptions& runtime, int64_t auto_tokens) const {
    EngineOptions o;
    o.kv_block = static_cast<int32_t>(runtime.kv_block);
    o.n_ctx = runtime.ctx;
    o.max_batch = static_cast<int32_t>(max_batch);
    o.max_tokens_per_step = static_cast<int32_t>(max_tokens_per_step);
    o.prefix_caching = !no_prefix_cache;
    try {
      o.kv_budget = kv_mem.empty() ? KvBudget::tokens(auto_tokens) : parse_kv_budget(kv_mem);
    } catch (const Error& e) {
      throw UsageError{std::string("--kv-mem: ") + e.what()};
    }
    return o;
  }
};

// Tokens one request can hold in the KV cache, rounded up to whole blocks.
inline int64_t kv_tokens_of(int64_t prompt_tokens, int64_t new_tokens, int64_t n_ctx, int64_t block) {
  const int64_t tokens = std::min(prompt_tokens + new_tokens, n_ctx);
  return (tokens + block - 1) / block * block;
}

}  // namespace tessera::cli
