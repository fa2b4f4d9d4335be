// Params structs for kernel tests, built field by field so a struct that grows in a
// later ABI version starts from zeros (the "off" value of every newer field) without
// positional initializers that silently shift.
#pragma once

#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::cpu::test {

inline tsr_norm_params norm_params(float eps, bool weight_plus_one, int32_t group = 0) {
  tsr_norm_params p{};
  p.eps = eps;
  p.weight_plus_one = weight_plus_one ? 1 : 0;
  p.group = group;
  return p;
}

// Plain RoPE (no YaRN: ext_factor 0).
inline tsr_rope_params rope_params(float theta, float freq_scale, int32_t n_heads, int32_t head_dim, int32_t n_rot,
                                   int32_t pairing) {
  tsr_rope_params p{};
  p.theta = theta;
  p.freq_scale = freq_scale;
  p.n_heads = n_heads;
  p.head_dim = head_dim;
  p.n_rot = n_rot;
  p.pairing = pairing;
  return p;
}

// `plain` with YaRN switched on.
inline tsr_rope_params yarn_params(tsr_rope_params plain, float ext_factor, float attn_factor, float beta_fast,
                                   float beta_slow, int32_t n_ctx_orig) {
  plain.ext_factor = ext_factor;
  plain.attn_factor = attn_factor;
  plain.beta_fast = beta_fast;
  plain.beta_slow = beta_slow;
  plain.n_ctx_orig = n_ctx_orig;
  return plain;
}

// `plain` with Llama 3.1 scaling switched on.
inline tsr_rope_params llama3_params(tsr_rope_params plain, float factor, float low, float high,
                                     int32_t n_ctx_orig) {
  plain.llama3_factor = factor;
  plain.llama3_low_freq_factor = low;
  plain.llama3_high_freq_factor = high;
  plain.n_ctx_orig = n_ctx_orig;
  return plain;
}

inline tsr_slice_params slice_params(int64_t start, int64_t count, int64_t stride, int64_t groups) {
  tsr_slice_params p{};
  p.start = start;
  p.count = count;
  p.stride = stride;
  p.groups = groups;
  return p;
}

}  // namespace tessera::cpu::test
