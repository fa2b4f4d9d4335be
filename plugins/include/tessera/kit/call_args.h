// Checked access to a kernel call: the input count, input `i` and the output as raw
// descriptors or as checked host views, and the params struct.
#pragma once

#include <string_view>

#include <tessera/plugin_abi.h>

#include <tessera/kit/kernel_error.h>
#include <tessera/kit/tensor_check.h>

namespace tessera::kit {

// Fails unless the call has min_inputs..max_inputs inputs: "matmul: expects 2 inputs, got 1".
void expect_input_count(const tsr_op_call& call, int min_inputs, int max_inputs, std::string_view op);

// The descriptor of input `index`, not yet checked; fails "<op>: <role> is missing"
// when the call has no such input.
const tsr_tensor* input_desc(const tsr_op_call& call, int index, std::string_view op,
                             std::string_view role);

// For kernel plugins: input `index` and the output ("out") through check_host_tensor.
HostView host_input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
HostView host_output(const tsr_op_call& call, std::string_view op);

// The call's params struct, or "<op>: params are missing".
template <class Params>
const Params& params_of(const tsr_op_call& call, std::string_view op) {
  if (call.params == nullptr) fail(op, "params are missing");
  return *static_cast<const Params*>(call.params);
}

}  // namespace tessera::kit
