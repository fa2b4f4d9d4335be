// RMS_NORM and LAYER_NORM: x [N, C] f32, w [G] f32 (and the optional layer-norm bias
// b [G]), out [N, C] f32, where each run of G = group columns (C for group 0) is
// normalised on its own. x is contiguous, so its groups are the rows of an
// [N * C / G, G] matrix: one workgroup per group, and norm.comp needs no notion of it.
// Its sums use subgroup arithmetic (norm_subgroup) where use_subgroup_arithmetic allows.
#include <string>

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
  uint32_t weight_plus_one, has_bias;
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

// Columns per normalised vector: the row for group 0, else a group that divides it.
int64_t group_width(const tsr_norm_params& p, int64_t cols, const char* op) {
  if (p.group < 0) fail(op, "group must be >= 0, got " + std::to_string(p.group));
  if (p.group == 0) return cols;
  if (cols % p.group != 0) {
    fail(op, "group " + std::to_string(p.group) + " does not divide the " + std::to_string(cols) + " columns of x");
  }
  return p.group;
}

void norm(VulkanDevice& device, const tsr_op_call& call, const char* op, NormKind kind) {
  expect_input_count(call, 2, kind == kLayer ? 3 : 2, op);
  const DeviceTensor x = input(call, 0, op, "x");
  const DeviceTensor w = input(call, 1, op, "w");
  const DeviceTensor out = output(call, op);
  const auto& params = params_of<tsr_norm_params>(call, op);
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  expect_dtype(w, TSR_DTYPE_F32, op, "w");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  const int64_t group = group_width(params, x.cols(), op);
  expect_vector(w, group, op, "w");
  expect_matrix(out, x.rows(), x.cols(), op, "out");
  VkDeviceAddress bias = 0;
  if (call.n_inputs > 2) {
    const DeviceTensor b = input(call, 2, op, "b");
    expect_dtype(b, TSR_DTYPE_F32, op, "b");
    expect_vector(b, group, op, "b");
    bias = b.address;
  }
  if (!(params.eps >= 0.0f)) fail(op, "eps must be >= 0, got " + std::to_string(params.eps));
  if (group == 0) return;  // nothing to normalise

  const uint64_t vectors = static_cast<uint64_t>(x.rows()) * static_cast<uint64_t>(x.cols() / group);
  Push p{x.address, w.address, bias, out.address, static_cast<uint32_t>(vectors), static_cast<uint32_t>(group),
         params.eps, params.weight_plus_one != 0 ? 1u : 0u, bias != 0 ? 1u : 0u};
  const ShaderId shader = use_subgroup_arithmetic(device.physical()) ? ShaderId::norm_subgroup : ShaderId::norm;
  device.dispatch(make_dispatch(shader, {kGroup, kind}, p, grid_for(device, vectors, op)));
}

}  // namespace

void rms_norm(VulkanDevice& device, const tsr_op_call& call) { norm(device, call, "rms_norm", kRms); }

void layer_norm(VulkanDevice& device, const tsr_op_call& call) { norm(device, call, "layer_norm", kLayer); }

}  // namespace tessera::vulkan
