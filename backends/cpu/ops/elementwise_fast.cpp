// Optimised RMS_NORM, ADD, MUL and SWIGLU: eight lanes at a time, and over the threads
// when the tensor is large enough to pay for the dispatch (a prefill step; a decode
// step's single row stays on the calling thread). Compiled once per instruction set
// (isa_target.h).
#include <algorithm>
#include <cmath>

#include "backends/cpu/device.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/norm.h"

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

using simd::F32x8;
using simd::kLanes;

constexpr int64_t kGrainElems = 16384;  // elements per task at least

// Tasks of whole rows, each of at least kGrainElems elements.
int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, kGrainElems / std::max<int64_t>(cols, 1)); }

// out[0:n] = x * inv_rms * gain, gain = w, 1 + w, or 1 without w.
void rms_norm_vector(const NormArgs& a, const float* w, const float* x, float* out, int64_t n) {
  F32x8 acc0 = simd::zero(), acc1 = simd::zero();
  int64_t c = 0;
  for (; c + 2 * kLanes <= n; c += 2 * kLanes) {
    const F32x8 v0 = simd::load(x + c), v1 = simd::load(x + c + kLanes);
    acc0 = simd::fma(v0, v0, acc0);
    acc1 = simd::fma(v1, v1, acc1);
  }
  for (; c + kLanes <= n; c += kLanes) {
    const F32x8 v = simd::load(x + c);
    acc0 = simd::fma(v, v, acc0);
  }
  double sum_sq = simd::hsum(simd::add(acc0, acc1));
  for (; c < n; ++c) sum_sq += static_cast<double>(x[c]) * x[c];
  const float inv_rms = static_cast<float>(1.0 / std::sqrt(sum_sq / static_cast<double>(n) + a.params.eps));
  const F32x8 scale = simd::broadcast(inv_rms), one = simd::broadcast(1.0f);
  const bool plus_one = a.params.weight_plus_one;
  c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    F32x8 g = w ? simd::load(w + c) : one;
    if (w && plus_one) g = simd::add(g, one);
    simd::store(out + c, simd::mul(simd::mul(simd::load(x + c), scale), g));
  }
  for (; c < n; ++c) {
    const float g = w ? (plus_one ? 1.0f + w[c] : w[c]) : 1.0f;
    out[c] = x[c] * inv_rms * g;
  }
}

template <class Op>
void binary_rows(const BinaryArgs& a, int64_t r_begin, int64_t r_end, Op op) {
  for (int64_t r = r_begin; r < r_end; ++r) {
    const float* x = a.a + r * a.cols;
    const float* y = a.broadcast ? a.b : a.b + r * a.cols;
    float* o = a.out + r * a.cols;
    int64_t c = 0;
    for (; c + kLanes <= a.cols; c += kLanes) simd::store(o + c, op(simd::load(x + c), simd::load(y + c)));
    for (; c < a.cols; ++c) {
      F32x8 xs = simd::broadcast(x[c]), ys = simd::broadcast(y[c]);
      float lanes[kLanes];
      simd::store(lanes, op(xs, ys));
      o[c] = lanes[0];
    }
  }
}

template <class Op>
void binary_checked(CpuDevice& device, const BinaryArgs& a, Op op) {
  device.pool().parallel_for(a.rows, row_grain(a.cols), [&](int64_t b, int64_t e) { binary_rows(a, b, e, op); });
}

// silu(g) * u = g * u / (1 + e^-g), lanes of [begin, end).
void swiglu_range(const SwigluArgs& a, int64_t begin, int64_t end) {
  const F32x8 one = simd::broadcast(1.0f), minus_one = simd::broadcast(-1.0f);
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    const F32x8 g = simd::load(a.gate + i);
    const F32x8 denominator = simd::add(one, simd::exp(simd::mul(g, minus_one)));
    simd::store(a.out + i, simd::div(simd::mul(g, simd::load(a.up + i)), denominator));
  }
  for (; i < end; ++i) a.out[i] = a.gate[i] * a.up[i] / (1.0f + std::exp(-a.gate[i]));
}

}  // namespace

void rms_norm_checked(CpuDevice& device, const NormArgs& a) {
  const int64_t n = a.group;
  const int64_t per_row = n > 0 ? a.x.cols() / n : 0;
  const int64_t vectors = a.x.rows() * per_row;
  const float* x = a.x.as<const float>();
  float* out = a.out.as<float>();
  const int64_t x_stride = a.x.cols(), out_stride = a.out.cols();
  device.pool().parallel_for(vectors, row_grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t v = begin; v < end; ++v) {
      const int64_t r = v / per_row, g = v % per_row;
      rms_norm_vector(a, a.w + g * a.param_stride, x + r * x_stride + g * n, out + r * out_stride + g * n, n);
    }
  });
}

void add_checked(CpuDevice& device, const BinaryArgs& a) {
  binary_checked(device, a, [](F32x8 x, F32x8 y) { return simd::add(x, y); });
}

void mul_checked(CpuDevice& device, const BinaryArgs& a) {
  binary_checked(device, a, [](F32x8 x, F32x8 y) { return simd::mul(x, y); });
}

void swiglu_checked(CpuDevice& device, const SwigluArgs& a) {
  constexpr int64_t kBlock = 1024;  // a multiple of the lanes, so only the end has a tail
  device.pool().parallel_for((a.n + kBlock - 1) / kBlock, kGrainElems / kBlock, [&](int64_t b, int64_t e) {
    swiglu_range(a, b * kBlock, std::min(e * kBlock, a.n));
  });
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
