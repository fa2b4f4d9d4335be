// SLICE: out [N, groups * count] = column ranges of x [N, C], f32; the checks are the kit's.
#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "slice";

}  // namespace

void slice(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 1, 1, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");  // [N, C]
  const DeviceTensor out = output(call, kOp);       // [N, groups * count]
  const auto& p = params_of<tsr_slice_params>(call, kOp);
  kit::check_slice(x, out, p);
  device.activate();
  launch_slice(x.as<const float>(), out.as<float>(), x.rows(), x.cols(), p.start, p.count, p.stride, p.groups,
               device.stream());
}

}  // namespace tessera::cuda
