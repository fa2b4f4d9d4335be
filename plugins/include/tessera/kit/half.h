// IEEE half and bfloat16 conversions, exact in the f32 direction and round-to-nearest-
// even towards 16 bits. Shared by kernels, block formats and weight readers.
#pragma once

#include <cstdint>

namespace tessera::kit {

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);  // round to nearest even; overflow gives infinity
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);  // round to nearest even; NaN stays a (quiet) NaN

// Whether an f16 bit pattern is a finite number (not infinity, not NaN).
inline bool f16_is_finite(uint16_t h) { return (h & 0x7c00u) != 0x7c00u; }

}  // namespace tessera::kit
