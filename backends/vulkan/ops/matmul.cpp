// MATMUL: out [N, M] f32 = x [N, K] f32 times w [M, K] (f32, f16, bf16 or q8_0)
// transposed. Few rows of x (decode) go to matmul_vec.comp, which reads each weight row
// once per kVecRows rows of x, one subgroup splitting K (matmul_vec_subgroup, where
// use_subgroup_arithmetic allows, reduces with subgroupAdd and puts several weight rows
// in a workgroup); more rows (prefill) go to the shared-memory tiles of matmul_tiled.comp.
#include <algorithm>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "matmul";
constexpr uint32_t kVecRows = 8;     // rows of x per matmul_vec workgroup
constexpr uint32_t kVecGroup = 128;  // matmul_vec_subgroup's workgroup (the minimum device limit)
constexpr uint32_t kTile = 64;       // matmul_tiled output tile (TILE x TILE)
constexpr uint32_t kTileK = 16;      // K slice staged per step

struct Push {  // matmul_vec.comp and matmul_tiled.comp
  VkDeviceAddress w, x, out;
  uint32_t n, k, m;
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

}  // namespace

void matmul(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");    // [N, K]
  const DeviceTensor w = input(call, 1, kOp, "w");    // [M, K]
  const DeviceTensor out = output(call, kOp);         // [N, M]
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  if (w.dtype == TSR_DTYPE_I32) fail(kOp, "w is i32, expected f32, f16, bf16 or q8_0");
  if (w.ndim != 2) fail(kOp, "w has shape " + shape_label(w) + ", expected [M, K]");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  const int64_t n = x.rows(), k = x.cols(), m = w.shape[0];
  if (w.cols() != k) fail(kOp, "x has " + std::to_string(k) + " columns but w has " + std::to_string(w.cols()));
  expect_matrix(out, n, m, kOp, "out");
  if (n == 0 || m == 0) return;

  const Push p{w.address, x.address, out.address, static_cast<uint32_t>(n), static_cast<uint32_t>(k),
               static_cast<uint32_t>(m)};
  const auto dtype = static_cast<uint32_t>(w.dtype);
  if (n <= static_cast<int64_t>(kVecRows)) {
    // Plain: one weight row per workgroup of one subgroup (a warp on NVIDIA): the tree
    // stays short, and on a CPU device (lavapipe) every extra subgroup multiplies the
    // barrier cost. Subgroups: a subgroup per weight row and kVecGroup invocations
    // (a multiple of any subgroup size), so small workgroups do not cap occupancy.
    const bool subgroups = use_subgroup_arithmetic(device.physical());
    const uint32_t group = subgroups ? kVecGroup : device.reduction_group_size();
    const uint32_t weight_rows = subgroups ? std::max(1u, kVecGroup / device.reduction_group_size()) : 1u;
    const uint64_t groups = ceil_div(static_cast<uint64_t>(m), weight_rows) * ceil_div(static_cast<uint64_t>(n), kVecRows);
    const ShaderId shader = subgroups ? ShaderId::matmul_vec_subgroup : ShaderId::matmul_vec;
    device.dispatch(
        make_dispatch(shader, {group, dtype, kVecRows, weight_rows}, p, grid_for(device, groups, kOp)));
  } else {
    const uint64_t groups = ceil_div(static_cast<uint64_t>(m), kTile) * ceil_div(static_cast<uint64_t>(n), kTile);
    // Constant 0 (the workgroup size) is fixed at 256 in the shader.
    device.dispatch(make_dispatch(ShaderId::matmul_tiled, {256u, dtype, kTile, kTileK}, p, grid_for(device, groups, kOp)));
  }
}

}  // namespace tessera::vulkan
