// IEEE half and bfloat16 conversions, exact in the f32 direction and round-to-nearest-
// even towards 16 bits. Shared by kernels, block formats and weight readers, on the host
// and (TSR_HD) in CUDA device code.
#pragma once

#include <cstdint>

#include <tessera/kit/host_device.h>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace tessera::kit {

// f16_to_f32 / bf16_to_f32: exact. f32_to_f16: round to nearest even, overflow gives
// infinity. f32_to_bf16: round to nearest even, NaN stays a (quiet) NaN.
TSR_HD inline float f16_to_f32(uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));  // the hardware conversion: exact, as below
#else
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  return bits_float(bits);
#endif
}

TSR_HD inline uint16_t f32_to_f16(float f) {
  uint32_t x = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal or zero
    if (abs < 0x33000000u) return sign;
    const uint32_t shift = 113 - (abs >> 23) + 13;  // 126 - 14 - exp + 13
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs >> 23) - 112) << 10 | (abs & 0x7fffffu) >> 13;
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

TSR_HD inline float bf16_to_f32(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  return bits_float(bits);
}

TSR_HD inline uint16_t f32_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// Whether an f16 bit pattern is a finite number (not infinity, not NaN).
TSR_HD inline bool f16_is_finite(uint16_t h) { return (h & 0x7c00u) != 0x7c00u; }

}  // namespace tessera::kit
