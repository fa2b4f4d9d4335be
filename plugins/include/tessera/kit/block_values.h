// The value of element i of one block, for every block format: the formulas of
// quant_blocks.h as inline functions that the reference dequantisation (dequantize.cpp)
// and the CUDA kernels (TSR_HD) both evaluate, so the GPU's arithmetic is the one CI
// tests on the CPU. Products and sums in the order gguf-py evaluates them: the block's
// scale products first (d * scale, dmin * min), then one multiply and at most one add
// or subtract. Compiled without fused multiply-add (the kit's -ffp-contract=off) they
// equal gguf-py's values bit for bit; a kernel that fuses them differs by rounding only.
#pragma once

#include <cstdint>

#include <tessera/kit/half.h>
#include <tessera/kit/host_device.h>
#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {

// Nibble i (0..31) of a 16-byte array: low nibbles first, then high ones.
TSR_HD inline int nibble32(const uint8_t* qs, int i) { return i < 16 ? qs[i] & 0xF : qs[i - 16] >> 4; }

// Bit i (0..31) of a little-endian 4-byte array.
TSR_HD inline int bit32(const uint8_t* qh, int i) { return (qh[i / 8] >> (i % 8)) & 1; }

TSR_HD inline float block_value(const BlockQ8_0& b, int i) { return static_cast<float>(b.q[i]) * f16_to_f32(b.d); }

TSR_HD inline float block_value(const BlockQ4_0& b, int i) {
  return f16_to_f32(b.d) * static_cast<float>(nibble32(b.qs, i) - 8);
}

TSR_HD inline float block_value(const BlockQ4_1& b, int i) {
  const float p = f16_to_f32(b.d) * static_cast<float>(nibble32(b.qs, i));
  return p + f16_to_f32(b.m);
}

TSR_HD inline float block_value(const BlockQ5_0& b, int i) {
  const int u = nibble32(b.qs, i) | bit32(b.qh, i) << 4;
  return f16_to_f32(b.d) * static_cast<float>(u - 16);
}

TSR_HD inline float block_value(const BlockQ5_1& b, int i) {
  const int u = nibble32(b.qs, i) | bit32(b.qh, i) << 4;
  const float p = f16_to_f32(b.d) * static_cast<float>(u);
  return p + f16_to_f32(b.m);
}

TSR_HD inline float block_value(const BlockIQ4_NL& b, int i) {
  return f16_to_f32(b.d) * static_cast<float>(iq4nl_value(nibble32(b.qs, i)));
}

// Element e = 128 g + 32 j + l of 256.
TSR_HD inline float block_value(const BlockQ2_K& b, int e) {
  const int g = e / 128, j = e % 128 / 32, l = e % 32, s = e / 16;
  const float dl = f16_to_f32(b.d) * static_cast<float>(b.scales[s] & 0xF);
  const float ml = f16_to_f32(b.dmin) * static_cast<float>(b.scales[s] >> 4);
  const float p = dl * static_cast<float>((b.qs[32 * g + l] >> (2 * j)) & 3);
  return p - ml;
}

// Sub-block k's (k < 16) scale of a Q3_K block, -32..31.
TSR_HD inline int q3_k_scale(const uint8_t* scales, int k) {
  const int low = (scales[k % 8] >> (4 * (k / 8))) & 0xF;
  const int high = (scales[8 + k % 4] >> (2 * (k / 4))) & 3;
  return (low | high << 4) - 32;
}

TSR_HD inline float block_value(const BlockQ3_K& b, int e) {
  const int g = e / 128, j = e % 128 / 32, l = e % 32;
  const int low = (b.qs[32 * g + l] >> (2 * j)) & 3;
  const int bit = (b.hmask[l] >> (e / 32)) & 1;
  const float dl = f16_to_f32(b.d) * static_cast<float>(q3_k_scale(b.scales, e / 16));
  return dl * static_cast<float>(low - (bit ? 0 : 4));
}

// Q4_K and Q5_K: d * scale * u - dmin * min for sub-block e / 32, u from the element's
// quant bits (4 or 5).
TSR_HD inline float k4_value(uint16_t d, uint16_t dmin, const uint8_t* scales, int u, int e) {
  uint8_t sc, mn;
  k4_scale_min(scales, e / 32, &sc, &mn);
  const float dl = f16_to_f32(d) * static_cast<float>(sc);
  const float ml = f16_to_f32(dmin) * static_cast<float>(mn);
  const float p = dl * static_cast<float>(u);
  return p - ml;
}

// Element e = 64 g + 32 h + l: nibble h of qs[32 g + l].
TSR_HD inline int k4_nibble(const uint8_t* qs, int e) { return (qs[32 * (e / 64) + e % 32] >> (4 * (e % 64 / 32))) & 0xF; }

TSR_HD inline float block_value(const BlockQ4_K& b, int e) { return k4_value(b.d, b.dmin, b.scales, k4_nibble(b.qs, e), e); }

TSR_HD inline float block_value(const BlockQ5_K& b, int e) {
  const int u = k4_nibble(b.qs, e) | ((b.qh[e % 32] >> (e / 32)) & 1) << 4;
  return k4_value(b.d, b.dmin, b.scales, u, e);
}

// Element e = 128 g + o.
TSR_HD inline float block_value(const BlockQ6_K& b, int e) {
  const int g = e / 128, o = e % 128;
  const int low = (b.ql[64 * g + o % 64] >> (4 * (o / 64))) & 0xF;
  const int high = (b.qh[32 * g + o % 32] >> (2 * (o / 32))) & 3;
  const float dl = f16_to_f32(b.d) * static_cast<float>(b.scales[e / 16]);
  return dl * static_cast<float>((low | high << 4) - 32);
}

// The signed 6-bit scale of 32-element chunk k (0..7): 4 low bits in scales_l, 2 high in scales_h.
TSR_HD inline int iq4xs_scale(const BlockIQ4_XS& b, int k) {
  const int low = (b.scales_l[k / 2] >> (4 * (k % 2))) & 0xF;
  const int high = (b.scales_h >> (2 * k)) & 3;
  return (low | high << 4) - 32;
}

// Element e = 32 k + 16 h + l.
TSR_HD inline float block_value(const BlockIQ4_XS& b, int e) {
  const int k = e / 32, h = e % 32 / 16, l = e % 16;
  const float dl = f16_to_f32(b.d) * static_cast<float>(iq4xs_scale(b, k));
  return dl * static_cast<float>(iq4nl_value((b.qs[16 * k + l] >> (4 * h)) & 0xF));
}

}  // namespace tessera::kit
