// SLICE: x [N, C] f32 -> out [N, groups * count] f32 with tsr_slice_params; the same
// checks and messages as the CPU kernel, then one invocation per output element
// (slice.comp).
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "slice";

struct Push {  // slice.comp
  VkDeviceAddress x, out;
  uint32_t n, x_cols, out_cols, start, count, stride;
};


}  // namespace

void slice(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 1, 1, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");  // [N, C]
  const DeviceTensor out = output(call, kOp);       // [N, groups * count]
  const auto& p = params_of<tsr_slice_params>(call, kOp);
  kit::check_slice(x, out, p);
  if (out.elements() == 0) return;
  // Every value fits 32 bits: x and out hold fewer than 2^31 elements (check_tensor),
  // and start + (groups - 1) * stride + count <= x_cols.
  const Push push{x.address,
                  out.address,
                  static_cast<uint32_t>(out.elements()),
                  static_cast<uint32_t>(x.cols()),
                  static_cast<uint32_t>(out.cols()),
                  static_cast<uint32_t>(p.start),
                  static_cast<uint32_t>(p.count),
                  static_cast<uint32_t>(p.groups > 1 ? p.stride : 0)};
  const Grid grid = grid_for(device, ceil_div(static_cast<uint64_t>(out.elements()), kElementwiseGroup), kOp);
  device.dispatch(make_dispatch(ShaderId::slice, {kElementwiseGroup}, push, grid));
}

}  // namespace tessera::vulkan
