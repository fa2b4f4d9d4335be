// Checked access to a CPU kernel call's tensors and params: the plugin kit's checks,
// with the CPU buffers' sizes and host addresses. Every kernel validates its arguments
// through these before touching memory, and fails with a KernelError.
#pragma once

#include <string_view>

#include <tessera/kit/call_args.h>
#include <tessera/kit/half.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/kit/tensor_check.h>
#include <tessera/plugin_abi.h>

namespace tessera::cpu {

class CpuDevice;

using kit::expect_dtype;
using kit::expect_input_count;
using kit::expect_matrix;
using kit::expect_vector;
using kit::dtype_label;
using kit::fail;
using kit::KernelError;
using kit::params_of;
using kit::shape_label;
using kit::BlockQ8_0;
using kit::f16_to_f32;
using kit::f32_to_f16;
inline constexpr int kQ8BlockElems = kit::kQK;

// The C++ form of a kernel: validates the call, computes, throws KernelError on bad input.
using KernelBody = void (*)(CpuDevice& device, const tsr_op_call& call);

// A validated tensor: its data pointer inside the buffer, and the shape seen as a matrix
// of rows() x cols() (all outer dimensions flattened; cols is the innermost one).
using TensorView = kit::HostView;

// kit::check_tensor against the CPU buffer's size, then the data pointer's alignment
// (wrapped host memory need not be aligned). `role` names the tensor: "x", "w".
TensorView check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);

// Input `index` of the call, validated; fails if the call has fewer inputs.
TensorView input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
// The output, validated.
TensorView output(const tsr_op_call& call, std::string_view op);

}  // namespace tessera::cpu
