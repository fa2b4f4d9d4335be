// The per-element arithmetic of the CUDA element-wise kernels as __host__ __device__
// functions (TSR_HD): the device evaluates these, and the CPU test compares the same
// functions, compiled for the host, with the CPU backend's reference kernels. f32 only,
// so that the device needs no double precision.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/kit/host_device.h>

namespace tessera::cuda {

enum class BinaryOp : int32_t { add, mul, sub, swiglu };
enum class UnaryOp : int32_t { silu, gelu, gelu_tanh, relu, relu_sqr, scale, softcap, affine, clamp };

TSR_HD inline float silu_of(float x) { return x / (1.0f + expf(-x)); }

TSR_HD inline float binary_of(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::swiglu: return silu_of(a) * b;
  }
  return 0.0f;
}

// p0, p1: SCALE's scale; SOFTCAP's cap; AFFINE's scale and bias; CLAMP's lo and hi.
TSR_HD inline float unary_of(UnaryOp op, float x, float p0, float p1) {
  switch (op) {
    case UnaryOp::silu: return silu_of(x);
    case UnaryOp::gelu: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case UnaryOp::gelu_tanh: {
      const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);  // sqrt(2 / pi)
      return 0.5f * x * (1.0f + tanhf(inner));
    }
    case UnaryOp::relu: return x > 0.0f ? x : 0.0f;
    case UnaryOp::relu_sqr: {
      const float r = x > 0.0f ? x : 0.0f;
      return r * r;
    }
    case UnaryOp::scale: return x * p0;
    case UnaryOp::softcap: return p0 * tanhf(x / p0);
    case UnaryOp::affine: return x * p0 + p1;
    case UnaryOp::clamp: return x < p0 ? p0 : (x > p1 ? p1 : x);  // NaN stays NaN
  }
  return 0.0f;
}

}  // namespace tessera::cuda
