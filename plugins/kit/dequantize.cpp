// Reference dequantisation of every block format (see dequantize.h). Each formula is
// evaluated as gguf-py evaluates it, so the results match bit for bit: the block's
// scale products first (d * scale, dmin * min), then one multiply and at most one add
// or subtract per element. The kit is compiled with -ffp-contract=off so that no
// multiply-add is fused.
#include <tessera/kit/dequantize.h>

#include <cstring>
#include <string>

#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/half.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {
namespace {

float half(uint16_t h) { return f16_to_f32(h); }

// Nibble i (0..31) of a 16-byte array: low nibbles first, then high ones.
int nibble32(const uint8_t* qs, int i) { return i < 16 ? qs[i] & 0xF : qs[i - 16] >> 4; }

void q8_0(const BlockQ8_0& b, float* y) {
  const float d = half(b.d);
  for (int i = 0; i < kQK; ++i) y[i] = static_cast<float>(b.q[i]) * d;
}

void q4_0(const BlockQ4_0& b, float* y) {
  const float d = half(b.d);
  for (int i = 0; i < kQK; ++i) y[i] = d * static_cast<float>(nibble32(b.qs, i) - 8);
}

void q4_1(const BlockQ4_1& b, float* y) {
  const float d = half(b.d), m = half(b.m);
  for (int i = 0; i < kQK; ++i) {
    const float p = d * static_cast<float>(nibble32(b.qs, i));
    y[i] = p + m;
  }
}

uint32_t qh32(const uint8_t* qh) {
  uint32_t v;
  std::memcpy(&v, qh, sizeof v);
  return v;  // little-endian hosts only, as the file layout
}

void q5_0(const BlockQ5_0& b, float* y) {
  const float d = half(b.d);
  const uint32_t qh = qh32(b.qh);
  for (int i = 0; i < kQK; ++i) {
    const int u = nibble32(b.qs, i) | static_cast<int>((qh >> i) & 1u) << 4;
    y[i] = d * static_cast<float>(u - 16);
  }
}

void q5_1(const BlockQ5_1& b, float* y) {
  const float d = half(b.d), m = half(b.m);
  const uint32_t qh = qh32(b.qh);
  for (int i = 0; i < kQK; ++i) {
    const int u = nibble32(b.qs, i) | static_cast<int>((qh >> i) & 1u) << 4;
    const float p = d * static_cast<float>(u);
    y[i] = p + m;
  }
}

void iq4_nl(const BlockIQ4_NL& b, float* y) {
  const float d = half(b.d);
  for (int i = 0; i < kQK; ++i) y[i] = d * static_cast<float>(kIq4nlValues[nibble32(b.qs, i)]);
}

void q2_k(const BlockQ2_K& b, float* y) {
  const float d = half(b.d), dmin = half(b.dmin);
  for (int e = 0; e < kQKK; ++e) {
    const int g = e / 128, j = e % 128 / 32, l = e % 32;
    const int s = e / 16;
    const float dl = d * static_cast<float>(b.scales[s] & 0xF);
    const float ml = dmin * static_cast<float>(b.scales[s] >> 4);
    const float p = dl * static_cast<float>((b.qs[32 * g + l] >> (2 * j)) & 3);
    y[e] = p - ml;
  }
}

int q3_k_scale(const uint8_t* scales, int k) {
  const int low = (scales[k % 8] >> (4 * (k / 8))) & 0xF;
  const int high = (scales[8 + k % 4] >> (2 * (k / 4))) & 3;
  return (low | high << 4) - 32;
}

void q3_k(const BlockQ3_K& b, float* y) {
  const float d = half(b.d);
  for (int e = 0; e < kQKK; ++e) {
    const int g = e / 128, j = e % 128 / 32, l = e % 32;
    const int low = (b.qs[32 * g + l] >> (2 * j)) & 3;
    const bool bit = (b.hmask[l] >> (e / 32)) & 1;
    const float dl = d * static_cast<float>(q3_k_scale(b.scales, e / 16));
    y[e] = dl * static_cast<float>(low - (bit ? 0 : 4));
  }
}

// Q4_K and Q5_K: d * scale * u - dmin * min per sub-block of 32; `fifth` adds qh's bit.
void k4_like(uint16_t d_bits, uint16_t dmin_bits, const uint8_t* scales, const uint8_t* qs,
             const uint8_t* qh, float* y) {
  const float d = half(d_bits), dmin = half(dmin_bits);
  for (int e = 0; e < kQKK; ++e) {
    const int g = e / 64, h = e % 64 / 32, l = e % 32;
    int u = (qs[32 * g + l] >> (4 * h)) & 0xF;
    if (qh != nullptr) u |= ((qh[l] >> (e / 32)) & 1) << 4;
    uint8_t sc, mn;
    k4_scale_min(scales, e / 32, &sc, &mn);
    const float dl = d * static_cast<float>(sc);
    const float ml = dmin * static_cast<float>(mn);
    const float p = dl * static_cast<float>(u);
    y[e] = p - ml;
  }
}

void q6_k(const BlockQ6_K& b, float* y) {
  const float d = half(b.d);
  for (int e = 0; e < kQKK; ++e) {
    const int g = e / 128, o = e % 128;
    const int low = (b.ql[64 * g + o % 64] >> (4 * (o / 64))) & 0xF;
    const int high = (b.qh[32 * g + o % 32] >> (2 * (o / 32))) & 3;
    const float dl = d * static_cast<float>(b.scales[e / 16]);
    y[e] = dl * static_cast<float>((low | high << 4) - 32);
  }
}

void iq4_xs(const BlockIQ4_XS& b, float* y) {
  const float d = half(b.d);
  for (int e = 0; e < kQKK; ++e) {
    const int k = e / 32, h = e % 32 / 16, l = e % 16;
    const int low = (b.scales_l[k / 2] >> (4 * (k % 2))) & 0xF;
    const int high = (b.scales_h >> (2 * k)) & 3;
    const float dl = d * static_cast<float>((low | high << 4) - 32);
    const int u = (b.qs[16 * k + l] >> (4 * h)) & 0xF;
    y[e] = dl * static_cast<float>(kIq4nlValues[u]);
  }
}

template <class Block>
const Block& as(const void* p) {
  return *static_cast<const Block*>(p);
}

}  // namespace

void dequantize_block(tsr_dtype t, const void* p, float* y) {
  switch (t) {
    case TSR_DTYPE_Q8_0: return q8_0(as<BlockQ8_0>(p), y);
    case TSR_DTYPE_Q4_0: return q4_0(as<BlockQ4_0>(p), y);
    case TSR_DTYPE_Q4_1: return q4_1(as<BlockQ4_1>(p), y);
    case TSR_DTYPE_Q5_0: return q5_0(as<BlockQ5_0>(p), y);
    case TSR_DTYPE_Q5_1: return q5_1(as<BlockQ5_1>(p), y);
    case TSR_DTYPE_IQ4_NL: return iq4_nl(as<BlockIQ4_NL>(p), y);
    case TSR_DTYPE_Q2_K: return q2_k(as<BlockQ2_K>(p), y);
    case TSR_DTYPE_Q3_K: return q3_k(as<BlockQ3_K>(p), y);
    case TSR_DTYPE_Q4_K: {
      const auto& b = as<BlockQ4_K>(p);
      return k4_like(b.d, b.dmin, b.scales, b.qs, nullptr, y);
    }
    case TSR_DTYPE_Q5_K: {
      const auto& b = as<BlockQ5_K>(p);
      return k4_like(b.d, b.dmin, b.scales, b.qs, b.qh, y);
    }
    case TSR_DTYPE_Q6_K: return q6_k(as<BlockQ6_K>(p), y);
    case TSR_DTYPE_IQ4_XS: return iq4_xs(as<BlockIQ4_XS>(p), y);
    default: break;
  }
  fail("dequantize", std::string(dtype_traits(t).name) + " is not a block format");
}

void dequantize_row(tsr_dtype t, const void* src, float* dst, int64_t n) {
  const DTypeTraits& tr = dtype_traits(t);
  if (!is_known_dtype(t) || t == TSR_DTYPE_I32) {
    fail("dequantize", "cannot convert " + std::string(tr.name) + " to f32");
  }
  if (n % tr.block_elems != 0) {
    fail("dequantize", "a row of " + std::to_string(n) + " elements is not a whole number of " +
                           std::string(tr.name) + " blocks of " + std::to_string(tr.block_elems));
  }
  const auto* bytes = static_cast<const uint8_t*>(src);
  switch (t) {
    case TSR_DTYPE_F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
      return;
    case TSR_DTYPE_F16:
    case TSR_DTYPE_BF16: {
      const bool f16 = t == TSR_DTYPE_F16;
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, sizeof h);
        dst[i] = f16 ? f16_to_f32(h) : bf16_to_f32(h);
      }
      return;
    }
    default:
      for (int64_t b = 0; b < n / tr.block_elems; ++b) {
        dequantize_block(t, bytes + b * tr.block_bytes, dst + b * tr.block_elems);
      }
  }
}

}  // namespace tessera::kit
