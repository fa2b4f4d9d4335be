// SLICE: copies column ranges of x [N, C] f32 into out [N, groups * count] f32
// (tsr_slice_params): one range (groups = 1), or one part of each head of a fused
// per-head projection (groups = heads, stride = the head's width in x).
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// out[n, g * count + j] = x[n, start + g * stride + j]. Fails unless start, count and
// stride are >= 0, groups >= 1, and the last column read, start + (groups - 1) * stride
// + count - 1, lies inside x. out must not overlap x.
void slice_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
