// MATMUL argument checks and the reference kernel (plain loops, written to be read).
#include "backends/cpu/ops/matmul.h"

#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/op_shapes.h>

namespace tessera::cpu {
namespace {
constexpr const char* kOp = "matmul";
}

MatmulArgs check_matmul(const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  MatmulArgs a;
  a.x = input(call, 0, kOp, "x");
  a.w = input(call, 1, kOp, "w");
  a.out = output(call, kOp);
  const kit::MatmulShape s = kit::check_matmul(a.x, a.w, a.out);
  a.n = s.n;
  a.k = s.k;
  a.m = s.m;
  a.w_buffer = call.inputs[1].buffer;
  return a;
}

void matmul_ref(CpuDevice&, const tsr_op_call& call) {
  const MatmulArgs a = check_matmul(call);
  std::vector<float> w_row(static_cast<size_t>(a.k));  // one weight row, dequantised
  float* out = a.out.as<float>();
  for (int64_t m = 0; m < a.m; ++m) {
    kit::dequantize_row(a.w.dtype, a.w.row<const std::byte>(m), w_row.data(), a.k);
    for (int64_t n = 0; n < a.n; ++n) {
      const float* x = a.x.row<const float>(n);
      double sum = 0.0;
      for (int64_t k = 0; k < a.k; ++k) sum += static_cast<double>(x[k]) * w_row[k];
      out[n * a.m + m] = static_cast<float>(sum);
    }
  }
}

}  // namespace tessera::cpu
