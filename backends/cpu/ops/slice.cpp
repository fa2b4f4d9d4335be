// SLICE reference kernel; its parameter checks are the plugin kit's.
#include "backends/cpu/ops/slice.h"

#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

namespace tessera::cpu {
namespace {

constexpr const char* kOp = "slice";

}  // namespace

void slice_ref(CpuDevice&, const tsr_op_call& call) {
  expect_input_count(call, 1, 1, kOp);
  const TensorView x = input(call, 0, kOp, "x");  // [N, C]
  const TensorView out = output(call, kOp);       // [N, groups * count]
  const auto& p = params_of<tsr_slice_params>(call, kOp);
  kit::check_slice(x, out, p);
  for (int64_t n = 0; n < x.rows(); ++n) {
    const float* src = x.row<const float>(n);
    float* dst = out.row<float>(n);
    for (int64_t g = 0; g < p.groups; ++g) {
      for (int64_t j = 0; j < p.count; ++j) dst[g * p.count + j] = src[p.start + g * p.stride + j];
    }
  }
}

}  // namespace tessera::cpu
