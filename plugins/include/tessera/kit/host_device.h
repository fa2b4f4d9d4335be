// TSR_HD marks a kit function that CUDA device code calls as well as host code: the
// block layouts' value formulas, the f16/bf16 conversions. Under nvcc it is
// __host__ __device__; in a plain C++ build it is nothing, so the same inline functions
// are what the CPU reference runs and what CI tests without a GPU.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TSR_HD __host__ __device__
#define TSR_UNROLL _Pragma("unroll")  // unroll the next loop in device code
#else
#define TSR_HD
#define TSR_UNROLL
#endif

namespace tessera::kit {

// The bits of a float, and back (no conversion).
TSR_HD inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
#endif
}

TSR_HD inline float bits_float(uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
#endif
}

}  // namespace tessera::kit
