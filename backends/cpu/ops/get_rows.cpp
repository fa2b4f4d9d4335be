// GET_ROWS reference kernel.
#include "backends/cpu/ops/get_rows.h"

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include <tessera/kit/dequantize.h>

namespace tessera::cpu {
namespace {
constexpr const char* kOp = "get_rows";
}

void get_rows_ref(CpuDevice&, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const TensorView table = input(call, 0, kOp, "table");  // [R, C]
  const TensorView idx = input(call, 1, kOp, "idx");      // [N] i32
  const TensorView out = output(call, kOp);               // [N, C] f32
  kit::check_get_rows(table, idx, out);
  const int64_t n = idx.elements();
  const int64_t n_rows = table.shape[0];
  const int64_t cols = table.cols();

  const int32_t* ids = idx.as<const int32_t>();
  kit::check_row_ids(ids, n, n_rows, kOp, "idx", "table");
  for (int64_t i = 0; i < n; ++i) {
    kit::dequantize_row(table.dtype, table.row<const std::byte>(ids[i]),
                   out.row<float>(i), cols);
  }
}

}  // namespace tessera::cpu
