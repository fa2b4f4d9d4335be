// The Vulkan side of the kit's argument checks: a buffer's allocation size and device
// address, and the shaders' 32-bit indexing limit.
#include "backends/vulkan/ops/tensor_args.h"

#include <limits>
#include <string>

#include "backends/vulkan/buffer.h"

namespace tessera::vulkan {
namespace {

uint64_t vulkan_buffer_size(tsr_buffer buffer) { return buffer->allocation.size; }

}  // namespace

DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role) {
  const kit::CheckedTensor checked = kit::check_tensor(t, op, role, vulkan_buffer_size);
  // Shaders index f32/i32 by 32-bit words and the 16-bit types (and q8_0) by halves.
  const auto units = checked.bytes / static_cast<uint64_t>(kit::dtype_alignment(checked.dtype));
  if (units > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    kit::fail(op, std::string(role) + " " + shape_label(checked) +
                      " has more than 2^31 elements, too many for the Vulkan kernels");
  }
  DeviceTensor v;
  static_cast<kit::TensorInfo&>(v) = checked;
  v.address = t->buffer->allocation.address() + t->offset;
  return v;
}

DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role) {
  return check_tensor(kit::input_desc(call, index, op, role), op, role);
}

DeviceTensor output(const tsr_op_call& call, std::string_view op) {
  return check_tensor(call.output, op, "out");
}

}  // namespace tessera::vulkan
