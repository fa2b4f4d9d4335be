// KV_WRITE: rows of x [T, n_kv_heads * head_dim] f32 into the cache
// [n_blocks, block_size, n_kv_heads * head_dim] (f32, f16 or q8_0) at rows slot [T] i32.
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "kv_write";

struct Push {  // kv_write.comp
  VkDeviceAddress x, slot, cache, status;
  uint32_t n_tokens, width, n_slots, call_id;
};

}  // namespace

void kv_write(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");
  const DeviceTensor slot = input(call, 1, kOp, "slot");
  const DeviceTensor cache = output(call, kOp);
  const auto& p = params_of<tsr_kv_write_params>(call, kOp);
  const int64_t n_tokens = kit::check_kv_write(x, slot, cache, p);
  const int64_t width = x.cols();
  const bool q8_0 = cache.dtype == TSR_DTYPE_Q8_0;
  const int64_t n_slots = cache.shape[0] * cache.shape[1];

  const Push push{x.address, slot.address, cache.address, device.error_word_address(),
                  static_cast<uint32_t>(n_tokens), static_cast<uint32_t>(width), static_cast<uint32_t>(n_slots),
                  device.next_call_id()};
  // One invocation per element, or per 32-value block for q8_0 (its amax is a reduction).
  const auto invocations = static_cast<uint64_t>(q8_0 ? x.elements() / kit::kQ8Block : x.elements());
  const Grid grid = grid_for(device, ceil_div(invocations, kElementwiseGroup), kOp);
  device.dispatch(make_dispatch(ShaderId::kv_write, {kElementwiseGroup, static_cast<uint32_t>(cache.dtype)}, push, grid),
                  kit::row_id_text(kOp, "slot", "cache", n_slots));
}

}  // namespace tessera::vulkan
