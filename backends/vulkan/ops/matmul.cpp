// MATMUL: out [N, M] f32 = x [N, K] f32 times w [M, K] transposed, w in f32, f16, bf16
// or a block format (q8_0, q4_0 ... iq4_xs, dequantised in the shaders: dequant.glsl).
// Few rows of x (decode) go to matmul_vec.comp, which reads each weight row once per
// kVecRows rows of x, one subgroup splitting K (matmul_vec_subgroup, where
// use_subgroup_arithmetic allows, reduces with subgroupAdd and puts several weight rows
// in a workgroup); more rows (prefill) go to the shared-memory tiles of matmul_tiled.comp.
// q8_0 weights on the decode path take the int8-dot path where use_int8_dot allows: x
// quantised per 32-block into scratch (quantize_q8.comp), then matmul_vec_int8.
#include <algorithm>

#include <tessera/kit/op_shapes.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "matmul";
constexpr uint32_t kVecRows = 8;            // rows of x per matmul_vec workgroup
constexpr uint32_t kVecGroup = 128;         // matmul_vec_subgroup's workgroup (the minimum device limit)
constexpr uint32_t kTile = 64;              // matmul_tiled output tile (TILE x TILE)
constexpr uint32_t kTileK = 16;             // K slice staged per step
constexpr uint32_t kQuantizeGroup = 64;     // quantize_q8: blocks of x per workgroup
constexpr uint64_t kQ8BlockElems = 32;      // values per block of x quantised
constexpr uint64_t kPackedBlockBytes = 36;  // per block: f32 scale + 32 int8

struct Push {  // matmul_vec.comp and matmul_tiled.comp
  VkDeviceAddress w, x, out;
  uint32_t n, k, m;
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

struct QuantizePush {  // quantize_q8.comp
  VkDeviceAddress x, out;
  uint32_t blocks;
  uint32_t unused = 0;
};

// x [N, K] f32 quantised into scratch for matmul_vec_int8: its device address.
// K % 32 == 0 holds for q8_0 weights, whose rows are whole blocks.
VkDeviceAddress quantize_x(VulkanDevice& device, VkDeviceAddress x, uint64_t n, uint64_t k) {
  const uint64_t blocks = n * k / kQ8BlockElems;
  const VkDeviceAddress packed = device.scratch(blocks * kPackedBlockBytes).address();
  const QuantizePush push{x, packed, static_cast<uint32_t>(blocks)};
  device.dispatch(make_dispatch(ShaderId::quantize_q8, {kQuantizeGroup}, push,
                                grid_for(device, ceil_div(blocks, kQuantizeGroup), kOp)));
  return packed;
}

}  // namespace

void matmul(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");    // [N, K]
  const DeviceTensor w = input(call, 1, kOp, "w");    // [M, K]
  const DeviceTensor out = output(call, kOp);         // [N, M]
  const auto [n, k, m] = kit::check_matmul(x, w, out);
  if (n == 0 || m == 0) return;

  Push p{w.address, x.address, out.address, static_cast<uint32_t>(n), static_cast<uint32_t>(k),
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
    ShaderId shader = subgroups ? ShaderId::matmul_vec_subgroup : ShaderId::matmul_vec;
    if (w.dtype == TSR_DTYPE_Q8_0 && use_int8_dot(device.physical())) {  // implies subgroups
      p.x = quantize_x(device, x.address, static_cast<uint64_t>(n), static_cast<uint64_t>(k));
      shader = ShaderId::matmul_vec_int8;
    }
    device.dispatch(
        make_dispatch(shader, {group, dtype, kVecRows, weight_rows}, p, grid_for(device, groups, kOp)));
  } else {
    const uint64_t groups = ceil_div(static_cast<uint64_t>(m), kTile) * ceil_div(static_cast<uint64_t>(n), kTile);
    // Constant 0 (the workgroup size) is fixed at 256 in the shader.
    device.dispatch(make_dispatch(ShaderId::matmul_tiled, {256u, dtype, kTile, kTileK}, p, grid_for(device, groups, kOp)));
  }
}

}  // namespace tessera::vulkan
