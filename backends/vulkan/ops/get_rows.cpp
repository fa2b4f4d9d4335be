// GET_ROWS: out [N, C] f32 = rows idx [N] of table [R, C] (f32, f16, bf16 or any block format: q8_0, q4_0 ... iq4_xs).
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "get_rows";

struct Push {  // get_rows.comp
  VkDeviceAddress table, idx, out, status;
  uint32_t n, cols, n_table_rows, call_id;
};

}  // namespace

void get_rows(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor table = input(call, 0, kOp, "table");  // [R, C]
  const DeviceTensor idx = input(call, 1, kOp, "idx");      // [N] i32
  const DeviceTensor out = output(call, kOp);               // [N, C] f32
  kit::check_get_rows(table, idx, out);
  const int64_t n = idx.elements();
  const int64_t n_rows = table.shape[0];

  Push p{table.address, idx.address, out.address, device.error_word_address(),
         static_cast<uint32_t>(n), static_cast<uint32_t>(table.cols()), static_cast<uint32_t>(n_rows),
         device.next_call_id()};
  const Grid grid = grid_for(device, ceil_div(static_cast<uint64_t>(out.elements()), kElementwiseGroup), kOp);
  device.dispatch(make_dispatch(ShaderId::get_rows, {kElementwiseGroup, static_cast<uint32_t>(table.dtype)}, p, grid),
                  kit::row_id_text(kOp, "idx", "table", n_rows));
}

}  // namespace tessera::vulkan
