// The mixture-of-experts ops: MOE_ROUTE (moe_route.comp), MOE_MATMUL (moe_matmul.comp,
// w in f32, f16, bf16 or any block format, as MATMUL's) and MOE_COMBINE (moe_combine.comp).
// The route lives on the device: the expert each slot reads is chosen in the shader,
// and a route naming no expert is reported through the device's error word.
#include <vector>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/moe_check.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

struct RoutePush {  // moe_route.comp
  VkDeviceAddress logits, out;
  uint32_t tokens, experts, k, gating, normalize;
  float scale;
};

struct MatmulPush {  // moe_matmul.comp
  VkDeviceAddress w, x, route, out, status;
  uint32_t slots, k, experts, m, cols, per_slot, call_id;
  uint32_t unused = 0;
};

struct CombinePush {  // moe_combine.comp
  VkDeviceAddress y, route, out;
  uint32_t tokens, cols, k;
  uint32_t unused = 0;
};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

}  // namespace

void moe_route(VulkanDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_route";
  expect_input_count(call, 1, 1, kOp);
  const DeviceTensor logits = input(call, 0, kOp, "logits");  // [T, E]
  const DeviceTensor out = output(call, kOp);                 // [T, 2k]
  const auto& p = params_of<tsr_moe_route_params>(call, kOp);
  const int64_t experts = kit::check_moe_route(logits, out, p);
  if (logits.rows() == 0) return;
  const RoutePush push{logits.address, out.address, u32(logits.rows()), u32(experts), u32(p.k),
                       u32(p.gating), u32(p.normalize != 0), p.scale};
  const uint64_t groups = ceil_div(static_cast<uint64_t>(logits.rows()), kElementwiseGroup);
  device.dispatch(make_dispatch(ShaderId::moe_route, {kElementwiseGroup}, push, grid_for(device, groups, kOp)));
}

void moe_matmul(VulkanDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_matmul";
  expect_input_count(call, 3, 3, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");              // [T, K] or [T, k * K]
  const DeviceTensor experts = input(call, 1, kOp, "experts");  // [E, M, K]
  const DeviceTensor route = input(call, 2, kOp, "route");      // [T, 2k]
  const DeviceTensor out = output(call, kOp);                   // [T, k * M]
  const kit::MoeMatmulSizes s = kit::check_moe_matmul(x, experts, route, out);
  const int64_t slots = s.tokens * s.slots;
  if (slots == 0 || s.m == 0) return;
  const MatmulPush push{experts.address, x.address, route.address, out.address, device.error_word_address(),
                        u32(slots), u32(s.slots), u32(s.experts), u32(s.m), u32(s.k), u32(s.per_slot),
                        device.next_call_id()};
  const std::vector<uint32_t> spec = {device.reduction_group_size(), static_cast<uint32_t>(experts.dtype)};
  const Grid grid = grid_for(device, static_cast<uint64_t>(slots * s.m), kOp);
  device.dispatch(make_dispatch(ShaderId::moe_matmul, spec, push, grid),
                  kit::route_text(s.experts));
}

void moe_combine(VulkanDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_combine";
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor y = input(call, 0, kOp, "y");          // [T, k * C]
  const DeviceTensor route = input(call, 1, kOp, "route");  // [T, 2k]
  const DeviceTensor out = output(call, kOp);               // [T, C]
  const int64_t cols = kit::check_moe_combine(y, route, out);
  if (out.elements() == 0) return;
  const CombinePush push{y.address, route.address, out.address, u32(y.rows()), u32(cols), u32(route.cols() / 2)};
  const uint64_t groups = ceil_div(static_cast<uint64_t>(out.elements()), kElementwiseGroup);
  device.dispatch(make_dispatch(ShaderId::moe_combine, {kElementwiseGroup}, push, grid_for(device, groups, kOp)));
}

}  // namespace tessera::vulkan
