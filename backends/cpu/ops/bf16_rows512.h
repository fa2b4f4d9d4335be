// Decode of bf16 weight rows against one row of x on AVX-512, for matmul_fast.cpp: one
// load per cache line (32 weights), split into exact f32 values with a shift and an and,
// no conversion. Against the eight-lane path (a widening move and a shift per 8 weights)
// it dots 40 G weights/s per thread in L2 instead of 27 (bench_cpu_kernels
// BM_DecodeCached bf16, Zen 4), and TinyLlama-shaped bf16 decode went 21.6/22.4/22.0 ->
// 22.6/22.7/22.4 tok/s (2 threads, in alternation; memory-bound there, so little to win).
// The same for f16 (vcvtph2ps on 16 lanes) was slower than eight lanes on Zen 4 (28
// against 36 G weights/s in L2), so f16 keeps them.
// ISA-specific: include after isa_target.h.
#pragma once

#if TESSERA_CPU_AVX512

#include <cstddef>
#include <cstdint>
#include <tessera/kit/half.h>

#include "backends/cpu/ops/read_ahead.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS::bf16x32 {

inline constexpr int64_t kStep = 32;  // weights per step: one 64-byte line

// A line of bf16 read as 16 32-bit words holds the even weights in the low halves and the
// odd ones in the high halves: word << 16 is the even weight as f32, word & 0xffff0000
// the odd one. x meets them laid out per 32 as its 16 even elements, then its 16 odd ones;
// elements past the last full 32 stay where they are.
inline void split_pairs(const float* x, int64_t K, float* out) {
  int64_t k = 0;
  for (; k + kStep <= K; k += kStep) {
    for (int i = 0; i < 16; ++i) {
      out[k + i] = x[k + 2 * i];
      out[k + 16 + i] = x[k + 2 * i + 1];
    }
  }
  for (; k < K; ++k) out[k] = x[k];
}

// The sum of the 16 lanes. The maskz forms with a full mask are the plain instructions;
// gcc 12's plain ones start from an undefined register and draw -Wuninitialized.
inline float hsum(__m512 v) {
  return simd::hsum({_mm256_add_ps(_mm512_maskz_extractf32x8_ps(0xff, v, 0), _mm512_maskz_extractf32x8_ps(0xff, v, 1))});
}

// *out[r] = dot(w[r][0:K], x) for S bf16 rows read side by side (S streams in flight, as
// matmul_fast.cpp's dot_far_rows); xs is x after split_pairs.
template <int S>
void dot_rows(const std::byte* const* w, const float* xs, int64_t K, float* const* out) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  __m512 even[S], odd[S];
  for (int r = 0; r < S; ++r) even[r] = odd[r] = _mm512_setzero_ps();
  const int64_t ahead = decode_read_ahead();
  int64_t k = 0;
  for (; k + kStep <= K; k += kStep) {
    if (ahead != 0) {
      for (int r = 0; r < S; ++r) read_ahead_line(w[r] + 2 * k + ahead);
    }
    const __m512 xe = _mm512_loadu_ps(xs + k), xo = _mm512_loadu_ps(xs + k + 16);
    for (int r = 0; r < S; ++r) {
      __m512i v = _mm512_loadu_si512(w[r] + 2 * k);
      // One load for both halves: without this the compiler reads the line twice, into
      // the shift and into the and, and loads are what this loop is bound by in cache.
      __asm__("" : "+v"(v));
      even[r] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, v, 16)), xe, even[r]);
      odd[r] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, high)), xo, odd[r]);
    }
  }
  for (int r = 0; r < S; ++r) {
    float sum = hsum(_mm512_add_ps(even[r], odd[r]));
    const auto* h = reinterpret_cast<const uint16_t*>(w[r]);
    for (int64_t kt = k; kt < K; ++kt) sum += kit::bf16_to_f32(h[kt]) * xs[kt];
    *out[r] = sum;
  }
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::bf16x32

#endif
