// MOE_ROUTE's arithmetic for one token as a __host__ __device__ function (TSR_HD): the
// k largest logits (ties to the lower index, a NaN last), their softmax or sigmoid
// probabilities, normalised and scaled as the params say. The CUDA kernel runs it, one
// thread per token; the CPU test compares it, compiled for the host, with the CPU
// reference. k is at most kMoeMaxSlots.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/kit/host_device.h>
#include <tessera/plugin_abi.h>

namespace tessera::cuda {

inline constexpr int32_t kMoeMaxSlots = 64;

// route [2k]: the chosen experts' indices, then their weights.
TSR_HD inline void moe_route_row(const float* logits, int64_t n_experts, const tsr_moe_route_params& p,
                                 float* route) {
  const auto score = [logits](int64_t e) { return logits[e] != logits[e] ? -INFINITY : logits[e]; };
  int64_t chosen[kMoeMaxSlots];
  for (int32_t j = 0; j < p.k; ++j) {
    int64_t best = -1;
    for (int64_t e = 0; e < n_experts; ++e) {
      bool taken = false;
      for (int32_t i = 0; i < j; ++i) taken = taken || chosen[i] == e;
      if (!taken && (best < 0 || score(e) > score(best))) best = e;
    }
    chosen[j] = best;
  }
  float top = -INFINITY, sum = 0.0f;
  if (p.gating == TSR_MOE_SOFTMAX) {
    for (int64_t e = 0; e < n_experts; ++e) top = fmaxf(top, logits[e]);
    for (int64_t e = 0; e < n_experts; ++e) sum += expf(logits[e] - top);
  }
  const auto prob = [&](int64_t e) {
    return p.gating == TSR_MOE_SOFTMAX ? expf(logits[e] - top) / sum : 1.0f / (1.0f + expf(-logits[e]));
  };
  float total = 0.0f;
  for (int32_t j = 0; j < p.k; ++j) total += prob(chosen[j]);
  const float norm = p.normalize && total > 0.0f ? 1.0f / total : 1.0f;
  for (int32_t j = 0; j < p.k; ++j) {
    route[j] = static_cast<float>(chosen[j]);
    route[p.k + j] = prob(chosen[j]) * norm * p.scale;
  }
}

}  // namespace tessera::cuda
