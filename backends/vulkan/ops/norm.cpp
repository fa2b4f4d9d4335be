// RMS_NORM and LAYER_NORM: x [N, C] f32, w [G] f32 (optional for layer norm, and its
// optional bias b [G]; or C values each, a gain per group), out [N, C] f32, where each run
// of G = group columns (C for group 0) is normalised on its own. x is contiguous, so its
// groups are the rows of an [N * C / G, G] matrix: one workgroup per group, which finds
// its parameters from its row.
// Its sums use subgroup arithmetic (norm_subgroup) where use_subgroup_arithmetic allows.
#include <string>

#include <tessera/kit/op_params.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

// Invocations per row: a power of two (the tree), so a multiple of any subgroup size.
constexpr uint32_t kGroup = 128;
enum NormKind : uint32_t { kRms = 0, kLayer = 1 };

struct Push {  // norm.comp
  VkDeviceAddress x, w, b, out;
  uint32_t rows, cols;
  float eps;
  uint32_t weight_plus_one, has_bias, has_weight;
  uint32_t groups_per_row, param_stride;  // a gain per group: group g's at g * param_stride
};

void norm(VulkanDevice& device, const tsr_op_call& call, const char* op, NormKind kind) {
  // Layer norm's weight is optional (a norm without parameters), and its bias follows it.
  expect_input_count(call, kind == kLayer ? 1 : 2, kind == kLayer ? 3 : 2, op);
  const DeviceTensor x = input(call, 0, op, "x");
  DeviceTensor w, b;
  if (call.n_inputs > 1) w = input(call, 1, op, "w");
  if (call.n_inputs > 2) b = input(call, 2, op, "b");
  const DeviceTensor out = output(call, op);
  const auto& params = params_of<tsr_norm_params>(call, op);
  const bool has_weight = call.n_inputs > 1, has_bias = call.n_inputs > 2;
  const kit::NormLayout layout =
      kit::check_norm(x, has_weight ? &w : nullptr, has_bias ? &b : nullptr, out, params, op);
  const int64_t group = layout.group;
  if (group == 0) return;  // nothing to normalise

  const uint64_t vectors = static_cast<uint64_t>(x.rows()) * static_cast<uint64_t>(x.cols() / group);
  Push p{x.address, w.address, b.address, out.address, static_cast<uint32_t>(vectors), static_cast<uint32_t>(group),
         params.eps, params.weight_plus_one != 0 ? 1u : 0u, has_bias ? 1u : 0u, has_weight ? 1u : 0u,
         static_cast<uint32_t>(x.cols() / group), static_cast<uint32_t>(layout.param_stride)};
  const ShaderId shader = use_subgroup_arithmetic(device.physical()) ? ShaderId::norm_subgroup : ShaderId::norm;
  device.dispatch(make_dispatch(shader, {kGroup, kind}, p, grid_for(device, vectors, op)));
}

}  // namespace

void rms_norm(VulkanDevice& device, const tsr_op_call& call) { norm(device, call, "rms_norm", kRms); }

void layer_norm(VulkanDevice& device, const tsr_op_call& call) { norm(device, call, "layer_norm", kLayer); }

}  // namespace tessera::vulkan
