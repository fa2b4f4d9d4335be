// The vectorised sigmoid: exp(x) = 2^n * p(r) with n = round(x / ln 2) and
// r = x - n ln 2 in [-ln2/2, ln2/2], p a degree-7 polynomial (the Cephes expf
// coefficients), 2^n built from its exponent bits.
#include "vector_silu.h"

#include <cstring>

namespace fast_silu {
namespace {

// 128-bit vectors: the baseline of x86-64 (SSE2) and AArch64 (NEON), so the build needs
// no -m flags and the calling convention of these helpers is the same everywhere.
typedef float F32x4 __attribute__((vector_size(16)));
typedef int32_t I32x4 __attribute__((vector_size(16)));
constexpr int kLanes = 4;

F32x4 splat(float v) { return F32x4{v, v, v, v}; }

F32x4 load(const float* p) {
  F32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store(float* p, F32x4 v) { std::memcpy(p, &v, sizeof v); }

// The same 128 bits seen as the other lane type.
template <class To, class From>
To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

// exp for every lane. Inputs are clamped to [-87.3, 88] so 2^n stays a normal float;
// NaN compares false both ways and passes through.
F32x4 exp4(F32x4 x) {
  x = x < splat(-87.3f) ? splat(-87.3f) : x;
  x = x > splat(88.0f) ? splat(88.0f) : x;
  // Adding 1.5 * 2^23 rounds to an integer in the low mantissa bits.
  const F32x4 kRound = splat(12582912.0f);
  const F32x4 t = x * splat(1.44269504088896341f) + kRound;
  const F32x4 n = t - kRound;
  // r = x - n ln2, with ln2 split in two so the product is exact.
  F32x4 r = x - n * splat(0.693359375f);
  r = r + n * splat(2.12194440e-4f);
  F32x4 p = splat(1.9875691500e-4f);
  p = p * r + splat(1.3981999507e-3f);
  p = p * r + splat(8.3334519073e-3f);
  p = p * r + splat(4.1665795894e-2f);
  p = p * r + splat(1.6666665459e-1f);
  p = p * r + splat(5.0000001201e-1f);
  p = p * r * r + r + splat(1.0f);
  // 2^n: n is in the low bits of t; put n + 127 in the exponent field.
  const I32x4 n_int = bits_as<I32x4>(t) - bits_as<I32x4>(kRound);
  return p * bits_as<F32x4>((n_int + 127) << 23);
}

F32x4 silu4(F32x4 x) { return x / (splat(1.0f) + exp4(-x)); }

// Runs f over whole vectors, then over the tail through a zero-padded vector.
template <class F>
void for_each_vector(int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) f(i, kLanes);
  if (i < n) f(i, static_cast<int>(n - i));
}

// The lanes [i, i + count) of `p`, zero past count.
F32x4 load_part(const float* p, int64_t i, int count) {
  if (count == kLanes) return load(p + i);
  float lanes[kLanes] = {};
  std::memcpy(lanes, p + i, static_cast<size_t>(count) * sizeof(float));
  return load(lanes);
}

void store_part(float* p, int64_t i, int count, F32x4 v) {
  if (count == kLanes) return store(p + i, v);
  float lanes[kLanes];
  store(lanes, v);
  std::memcpy(p + i, lanes, static_cast<size_t>(count) * sizeof(float));
}

}  // namespace

void silu(const float* x, float* out, int64_t n) {
  for_each_vector(n, [&](int64_t i, int count) { store_part(out, i, count, silu4(load_part(x, i, count))); });
}

void swiglu(const float* gate, const float* up, float* out, int64_t n) {
  for_each_vector(n, [&](int64_t i, int count) {
    store_part(out, i, count, silu4(load_part(gate, i, count)) * load_part(up, i, count));
  });
}

}  // namespace fast_silu
