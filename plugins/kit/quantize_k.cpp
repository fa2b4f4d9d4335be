// The K and IQ4_XS quantisers. Each super-block of 256 values: fit every sub-block
// (fit_affine / fit_symmetric / fit_table), quantise the sub-block scales (and mins)
// against the super-block's f16 scale, then quantise the values again with the
// effective scales exactly as dequantisation will compute them.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <tessera/kit/half.h>

#include "quantize_fit.h"
#include "quantize_k.h"

namespace tessera::kit {
namespace {

using fit::clamp_level;
using fit::round_level;

// Sub-block scales (all >= 0) as `bits`-bit integers of a common f16 step; returns the
// step's f16 bits and fills levels[].
uint16_t quantize_unsigned_scales(const float* scales, int count, int max_level, int* levels) {
  float max = 0.0f;
  for (int i = 0; i < count; ++i) max = std::max(max, scales[i]);
  const uint16_t step_bits = f32_to_f16(max / static_cast<float>(max_level));
  const float step = f16_to_f32(step_bits);
  for (int i = 0; i < count; ++i) {
    levels[i] = step > 0.0f ? clamp_level(round_level(scales[i] / step), 0, max_level) : 0;
  }
  return step_bits;
}

// Signed sub-block scales as integers in [lo, hi] of a common f16 step, the largest-
// magnitude scale mapped to `lo` (the longer side).
uint16_t quantize_signed_scales(const float* scales, int count, int lo, int hi, int* levels) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < count; ++i) {
    if (std::fabs(scales[i]) > amax) {
      amax = std::fabs(scales[i]);
      max = scales[i];
    }
  }
  const uint16_t step_bits = f32_to_f16(max / static_cast<float>(lo));
  const float step = f16_to_f32(step_bits);
  for (int i = 0; i < count; ++i) {
    levels[i] = step != 0.0f ? clamp_level(round_level(scales[i] / step), lo, hi) : 0;
  }
  return step_bits;
}

// Affine super-blocks (Q2_K, Q4_K, Q5_K): u[e] in [0, nmax] for each element.
struct AffineBlock {
  uint16_t d, dmin;
  int scale[16], min[16];
  int u[kQKK];
};

AffineBlock affine_block(const float* x, int sub, int nmax, int scale_max) {
  const int count = kQKK / sub;
  AffineBlock r{};
  float scales[16], mins[16];
  for (int s = 0; s < count; ++s) {
    const fit::Affine a = fit::fit_affine(x + s * sub, sub, nmax);
    scales[s] = a.scale;
    mins[s] = a.min;
  }
  r.d = quantize_unsigned_scales(scales, count, scale_max, r.scale);
  r.dmin = quantize_unsigned_scales(mins, count, scale_max, r.min);
  const float d = f16_to_f32(r.d), dmin = f16_to_f32(r.dmin);
  for (int s = 0; s < count; ++s) {
    const float dl = d * static_cast<float>(r.scale[s]);
    const float ml = dmin * static_cast<float>(r.min[s]);
    for (int i = 0; i < sub; ++i) {
      const int e = s * sub + i;
      r.u[e] = dl > 0.0f ? clamp_level(round_level((x[e] + ml) / dl), 0, nmax) : 0;
    }
  }
  return r;
}

// Symmetric super-blocks (Q3_K, Q6_K): q[e] in [lo, hi].
struct SymmetricBlock {
  uint16_t d;
  int scale[16];
  int q[kQKK];
};

SymmetricBlock symmetric_block(const float* x, int lo, int hi, int scale_lo, int scale_hi) {
  constexpr int kSub = 16, kCount = kQKK / kSub;
  SymmetricBlock r{};
  float scales[kCount];
  for (int s = 0; s < kCount; ++s) scales[s] = fit::fit_symmetric(x + s * kSub, kSub, lo, hi).scale;
  r.d = quantize_signed_scales(scales, kCount, scale_lo, scale_hi, r.scale);
  const float d = f16_to_f32(r.d);
  for (int s = 0; s < kCount; ++s) {
    const float dl = d * static_cast<float>(r.scale[s]);
    for (int i = 0; i < kSub; ++i) {
      const int e = s * kSub + i;
      r.q[e] = dl != 0.0f ? clamp_level(round_level(x[e] / dl), lo, hi) : 0;
    }
  }
  return r;
}

// Q4_K / Q5_K scales: 8 six-bit scales and mins (the inverse of k4_scale_min).
void pack_k4_scales(const int* scale, const int* min, uint8_t* out) {
  for (int j = 0; j < 4; ++j) {
    out[j] = static_cast<uint8_t>(scale[j] | (scale[j + 4] >> 4) << 6);
    out[j + 4] = static_cast<uint8_t>(min[j] | (min[j + 4] >> 4) << 6);
    out[j + 8] = static_cast<uint8_t>((scale[j + 4] & 0xF) | (min[j + 4] & 0xF) << 4);
  }
}

// Low 4 bits of Q4_K / Q5_K elements: element 64 g + 32 h + l in qs[32 g + l] nibble h.
void pack_k4_nibbles(const int* u, uint8_t* qs) {
  for (int g = 0; g < 4; ++g) {
    for (int l = 0; l < 32; ++l) {
      qs[32 * g + l] = static_cast<uint8_t>((u[64 * g + l] & 0xF) | (u[64 * g + 32 + l] & 0xF) << 4);
    }
  }
}

// 2-bit fields: element 128 g + 32 j + l in qs[32 g + l] bits 2 j.
void pack_crumbs(const int* v, uint8_t* qs) {
  for (int g = 0; g < 2; ++g) {
    for (int l = 0; l < 32; ++l) {
      int byte = 0;
      for (int j = 0; j < 4; ++j) byte |= (v[128 * g + 32 * j + l] & 3) << (2 * j);
      qs[32 * g + l] = static_cast<uint8_t>(byte);
    }
  }
}

}  // namespace

void quantize_q2_k(const float* x, BlockQ2_K& b) {
  const AffineBlock r = affine_block(x, 16, 3, 15);
  b.d = r.d;
  b.dmin = r.dmin;
  for (int s = 0; s < 16; ++s) b.scales[s] = static_cast<uint8_t>(r.scale[s] | r.min[s] << 4);
  pack_crumbs(r.u, b.qs);
}

void quantize_q4_k(const float* x, BlockQ4_K& b) {
  const AffineBlock r = affine_block(x, 32, 15, 63);
  b.d = r.d;
  b.dmin = r.dmin;
  pack_k4_scales(r.scale, r.min, b.scales);
  pack_k4_nibbles(r.u, b.qs);
}

void quantize_q5_k(const float* x, BlockQ5_K& b) {
  const AffineBlock r = affine_block(x, 32, 31, 63);
  b.d = r.d;
  b.dmin = r.dmin;
  pack_k4_scales(r.scale, r.min, b.scales);
  pack_k4_nibbles(r.u, b.qs);
  std::memset(b.qh, 0, sizeof b.qh);
  for (int e = 0; e < kQKK; ++e) b.qh[e % 32] |= static_cast<uint8_t>((r.u[e] >> 4) << (e / 32));
}

void quantize_q3_k(const float* x, BlockQ3_K& b) {
  const SymmetricBlock r = symmetric_block(x, -4, 3, -32, 31);
  b.d = r.d;
  std::memset(b.scales, 0, sizeof b.scales);
  for (int k = 0; k < 16; ++k) {
    const int v = r.scale[k] + 32;
    b.scales[k % 8] |= static_cast<uint8_t>((v & 0xF) << (4 * (k / 8)));
    b.scales[8 + k % 4] |= static_cast<uint8_t>((v >> 4) << (2 * (k / 4)));
  }
  int u[kQKK];
  std::memset(b.hmask, 0, sizeof b.hmask);
  for (int e = 0; e < kQKK; ++e) {
    u[e] = r.q[e] + 4;  // 0..7: a set high bit means "no -4"
    b.hmask[e % 32] |= static_cast<uint8_t>((u[e] >> 2) << (e / 32));
  }
  pack_crumbs(u, b.qs);
}

void quantize_q6_k(const float* x, BlockQ6_K& b) {
  const SymmetricBlock r = symmetric_block(x, -32, 31, -128, 127);
  b.d = r.d;
  for (int s = 0; s < 16; ++s) b.scales[s] = static_cast<int8_t>(r.scale[s]);
  std::memset(b.ql, 0, sizeof b.ql);
  std::memset(b.qh, 0, sizeof b.qh);
  for (int e = 0; e < kQKK; ++e) {
    const int u = r.q[e] + 32, g = e / 128, o = e % 128;
    b.ql[64 * g + o % 64] |= static_cast<uint8_t>((u & 0xF) << (4 * (o / 64)));
    b.qh[32 * g + o % 32] |= static_cast<uint8_t>((u >> 4) << (2 * (o / 32)));
  }
}

void quantize_iq4_xs(const float* x, BlockIQ4_XS& b) {
  constexpr int kSub = 32, kCount = kQKK / kSub;
  float scales[kCount];
  for (int s = 0; s < kCount; ++s) scales[s] = fit::fit_table(x + s * kSub, kSub, kIq4nlValues);
  int levels[kCount];
  b.d = quantize_signed_scales(scales, kCount, -32, 31, levels);
  const float d = f16_to_f32(b.d);
  b.scales_h = 0;
  std::memset(b.scales_l, 0, sizeof b.scales_l);
  for (int k = 0; k < kCount; ++k) {
    const int v = levels[k] + 32;
    b.scales_l[k / 2] |= static_cast<uint8_t>((v & 0xF) << (4 * (k % 2)));
    b.scales_h = static_cast<uint16_t>(b.scales_h | (v >> 4) << (2 * k));
    const float dl = d * static_cast<float>(levels[k]);
    for (int l = 0; l < 16; ++l) {
      int u[2];
      for (int h = 0; h < 2; ++h) {
        const float v_x = x[kSub * k + 16 * h + l];
        u[h] = dl != 0.0f ? fit::nearest_table_level(v_x / dl, kIq4nlValues) : 8;
      }
      b.qs[16 * k + l] = static_cast<uint8_t>(u[0] | u[1] << 4);
    }
  }
}

}  // namespace tessera::kit
