// SLICE reference kernel and its parameter checks.
#include "backends/cpu/ops/slice.h"

#include <string>

namespace tessera::cpu {
namespace {

constexpr const char* kOp = "slice";

// Checks the params against x's width and returns the output width, groups * count.
int64_t check_slice(const tsr_slice_params& p, int64_t x_cols) {
  if (p.start < 0 || p.count < 0 || p.stride < 0 || p.groups < 1) {
    fail(kOp, "needs start, count, stride >= 0 and groups >= 1, got start " + std::to_string(p.start) +
                  ", count " + std::to_string(p.count) + ", stride " + std::to_string(p.stride) + ", groups " +
                  std::to_string(p.groups));
  }
  // start + (groups - 1) * stride + count <= x_cols, arranged so nothing can overflow.
  const int64_t room = x_cols - p.start;
  const bool fits = p.start <= x_cols && p.count <= room &&
                    (p.groups == 1 || p.stride <= (room - p.count) / (p.groups - 1));
  if (!fits) {
    fail(kOp, std::to_string(p.groups) + " groups of " + std::to_string(p.count) + " columns from column " +
                  std::to_string(p.start) + " with stride " + std::to_string(p.stride) + " read past the " +
                  std::to_string(x_cols) + " columns of x");
  }
  int64_t out_cols = 0;
  if (__builtin_mul_overflow(p.groups, p.count, &out_cols)) fail(kOp, "groups * count overflows");
  return out_cols;
}

}  // namespace

void slice_ref(CpuDevice&, const tsr_op_call& call) {
  expect_input_count(call, 1, 1, kOp);
  const TensorView x = input(call, 0, kOp, "x");  // [N, C]
  const TensorView out = output(call, kOp);       // [N, groups * count]
  const auto& p = params_of<tsr_slice_params>(call, kOp);
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  const int64_t out_cols = check_slice(p, x.cols());
  expect_matrix(out, x.rows(), out_cols, kOp, "out");
  for (int64_t n = 0; n < x.rows(); ++n) {
    const float* src = x.row<const float>(n);
    float* dst = out.row<float>(n);
    for (int64_t g = 0; g < p.groups; ++g) {
      for (int64_t j = 0; j < p.count; ++j) dst[g * p.count + j] = src[p.start + g * p.stride + j];
    }
  }
}

}  // namespace tessera::cpu
