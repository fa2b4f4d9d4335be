// The kernels of fast_silu as C++ bodies: they check the call with the plugin kit and
// compute on host memory (tsr_tensor.host_data), throwing kit::KernelError on bad input.
#pragma once

#include <tessera/plugin_abi.h>

namespace fast_silu {

void silu_f32(const tsr_op_call& call);    // in: x [.., C] f32. out: same shape
void swiglu_f32(const tsr_op_call& call);  // in: gate, up [.., C] f32. out: same shape

}  // namespace fast_silu
