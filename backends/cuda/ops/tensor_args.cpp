// The CUDA side of the kit's argument checks: a buffer's size and device address.
#include "backends/cuda/ops/tensor_args.h"

#include "backends/cuda/buffer.h"

namespace tessera::cuda {
namespace {

uint64_t cuda_buffer_size(tsr_buffer buffer) { return buffer->size; }

}  // namespace

DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role) {
  const kit::CheckedTensor checked = kit::check_tensor(t, op, role, cuda_buffer_size);
  DeviceTensor v;
  static_cast<kit::TensorInfo&>(v) = checked;
  v.data = t->buffer->data + t->offset;
  return v;
}

DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role) {
  return check_tensor(kit::input_desc(call, index, op, role), op, role);
}

DeviceTensor output(const tsr_op_call& call, std::string_view op) { return check_tensor(call.output, op, "out"); }

}  // namespace tessera::cuda
