// Checked access to a kernel call's inputs and output.
#include <tessera/kit/call_args.h>

#include <string>

namespace tessera::kit {

void expect_input_count(const tsr_op_call& call, int min_inputs, int max_inputs, std::string_view op) {
  if (call.n_inputs < min_inputs || call.n_inputs > max_inputs || call.inputs == nullptr) {
    const std::string expected = min_inputs == max_inputs
                                     ? std::to_string(min_inputs)
                                     : std::to_string(min_inputs) + ".." + std::to_string(max_inputs);
    fail(op, "expects " + expected + " inputs, got " + std::to_string(call.n_inputs));
  }
}

const tsr_tensor* input_desc(const tsr_op_call& call, int index, std::string_view op,
                             std::string_view role) {
  if (index < 0 || index >= call.n_inputs || call.inputs == nullptr) {
    fail(op, std::string(role) + " is missing");
  }
  return &call.inputs[index];
}

HostView host_input(const tsr_op_call& call, int index, std::string_view op, std::string_view role) {
  return check_host_tensor(input_desc(call, index, op, role), op, role);
}

HostView host_output(const tsr_op_call& call, std::string_view op) {
  return check_host_tensor(call.output, op, "out");
}

}  // namespace tessera::kit
