// SiLU and SwiGLU over f32 arrays, four lanes at a time with a polynomial exp, in
// portable GCC/Clang vector extensions (no intrinsics): within 3e-7 relative of
// x / (1 + expf(-x)) for finite x.
#pragma once

#include <cstdint>

namespace fast_silu {

// out[i] = x[i] * sigmoid(x[i]). `out` may be `x`.
void silu(const float* x, float* out, int64_t n);

// out[i] = silu(gate[i]) * up[i]. `out` may be `gate` or `up`.
void swiglu(const float* gate, const float* up, float* out, int64_t n);

}  // namespace fast_silu
