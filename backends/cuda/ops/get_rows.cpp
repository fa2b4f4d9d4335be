// GET_ROWS: out [N, C] f32 = rows idx [N] of table [R, C] (f32, f16, bf16 or any block
// format). The kernel checks the indices: one outside the table is reported through the
// error word (kit/device_errors.h) as an error naming it, never read.
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "get_rows";

}  // namespace

void get_rows(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor table = input(call, 0, kOp, "table");  // [R, C]
  const DeviceTensor idx = input(call, 1, kOp, "idx");      // [N] i32
  const DeviceTensor out = output(call, kOp);               // [N, C] f32
  kit::check_get_rows(table, idx, out);
  const int64_t n = idx.elements(), n_rows = table.shape[0];
  if (n == 0 || table.cols() == 0) return;
  device.activate();
  launch_get_rows(table.dtype, table.data, table.row_bytes(), n_rows, idx.as<const int32_t>(), out.as<float>(), n,
                  table.cols(), device.errors_for(kit::row_id_text(kOp, "idx", "table", n_rows)), device.stream());
}

}  // namespace tessera::cuda
