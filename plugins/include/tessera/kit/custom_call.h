// A call of an op the plugin declares (TSR_OP_CUSTOM) checked against its declaration
// before a kernel plugin's kernel touches memory: the op's name, the inputs given and
// their shape rules and dtypes, the output's shape, the attributes. The host checks
// calls when it compiles a model; this is the kernel's own line of defence, and the
// place it reads its inputs and attributes from.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <tessera/plugin_abi.h>

#include <tessera/kit/tensor_check.h>

namespace tessera::kit {

struct CustomCall {
  const tsr_op_decl* decl = nullptr;
  std::vector<HostView> inputs;  // the inputs given (optional trailing ones may be absent)
  HostView out;
  const tsr_custom_params* params = nullptr;

  bool has_input(int index) const { return index >= 0 && index < static_cast<int>(inputs.size()); }
  // The value of attribute `name` of the declaration; fails for a name it lacks or of
  // the other type.
  int64_t attr_int(std::string_view name) const;
  double attr_float(std::string_view name) const;
};

// Checks `call` (a kernel plugin's: tensors through host_data) against `decl`. Fails
// (KernelError, "<op name>: <cause>") unless: the call is TSR_OP_CUSTOM for decl.name
// with tsr_custom_params holding decl.n_attrs values, the inputs number from the
// required ones to all, each satisfies its shape rule, every input but the key input is
// f32, and the output is f32 shaped as the declaration says.
CustomCall check_custom_call(const tsr_op_call& call, const tsr_op_decl& decl);

}  // namespace tessera::kit
