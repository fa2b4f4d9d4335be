// ROPE: rotary position embedding of x [T, n_heads * head_dim] f32 at positions
// pos i32 [T]; out has x's shape and may be x. Params tsr_rope_params.
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// For pair i < n_rot / 2 of every head the frequency is theta^(-2i / n_rot), rescaled
// by Llama 3.1's bands when llama3_factor > 0 and divided by freq_factors[i] when the
// optional input 2 (f32 [n_rot / 2]) is given; the angle is pos * freq_scale * that
// frequency. With YaRN (ext_factor > 0) it is that angle mixed with the unscaled
// pos * frequency by the pair's ramp, and cos and sin are scaled (see plugin_abi.h).
//   interleaved pairs (v[2i], v[2i+1]), neox pairs (v[i], v[i + n_rot/2]);
//   (a, b) -> (a cos - b sin, a sin + b cos). Dims from n_rot on pass through.
void rope_ref(CpuDevice& device, const tsr_op_call& call);
// The same values, the tokens spread over the threads.
void rope_fast(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
