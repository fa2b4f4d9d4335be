// The CPU side of the kit's argument checks: a CPU buffer's size and host address.
#include "backends/cpu/ops/tensor_args.h"

#include "backends/cpu/buffer.h"

namespace tessera::cpu {
namespace {

uint64_t cpu_buffer_size(tsr_buffer buffer) { return buffer->size; }

}  // namespace

TensorView check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role) {
  const kit::CheckedTensor checked = kit::check_tensor(t, op, role, cpu_buffer_size);
  TensorView v;
  static_cast<kit::TensorInfo&>(v) = checked;
  v.data = t->buffer->data + t->offset;
  kit::expect_aligned(reinterpret_cast<uintptr_t>(v.data), t->offset, v, op, role);
  return v;
}

TensorView input(const tsr_op_call& call, int index, std::string_view op, std::string_view role) {
  return check_tensor(kit::input_desc(call, index, op, role), op, role);
}

TensorView output(const tsr_op_call& call, std::string_view op) {
  return check_tensor(call.output, op, "out");
}

}  // namespace tessera::cpu
