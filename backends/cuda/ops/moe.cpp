// MOE_ROUTE, MOE_MATMUL and MOE_COMBINE: the kit's checks (kit/moe_check.h); MOE_MATMUL's
// kernel checks every expert index the route names and reports a bad one through the
// error word (kit/device_errors.h).
#include <string>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/moe_check.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {

void moe_route(CudaDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_route";
  expect_input_count(call, 1, 1, kOp);
  const DeviceTensor logits = input(call, 0, kOp, "logits");
  const DeviceTensor out = output(call, kOp);
  const auto& p = params_of<tsr_moe_route_params>(call, kOp);
  const int64_t experts = kit::check_moe_route(logits, out, p);
  if (p.k > kMoeMaxSlots) {
    fail(kOp, "k is " + std::to_string(p.k) + ", more than the CUDA kernel's " + std::to_string(kMoeMaxSlots));
  }
  device.activate();
  launch_moe_route(logits.as<const float>(), out.as<float>(), logits.rows(), experts, p, device.stream());
}

void moe_matmul(CudaDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_matmul";
  expect_input_count(call, 3, 3, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");
  const DeviceTensor experts = input(call, 1, kOp, "experts");
  const DeviceTensor route = input(call, 2, kOp, "route");
  const DeviceTensor out = output(call, kOp);
  const kit::MoeMatmulSizes s = kit::check_moe_matmul(x, experts, route, out);
  device.activate();
  MoeMatmulLaunch a{};
  a.x = x.as<const float>();
  a.experts = experts.as<const uint8_t>();
  a.route = route.as<const float>();
  a.out = out.as<float>();
  a.dtype = experts.dtype;
  a.expert_row_bytes = kit::dtype_row_bytes(experts.dtype, s.k);
  a.tokens = s.tokens;
  a.slots = s.slots;
  a.m = s.m;
  a.k = s.k;
  a.n_experts = s.experts;
  a.per_slot = s.per_slot;
  if (s.tokens * s.slots * s.m == 0) return;
  a.errors = device.errors_for(kit::route_text(s.experts));
  launch_moe_matmul(a, device.stream());
}

void moe_combine(CudaDevice& device, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_combine";
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor y = input(call, 0, kOp, "y");
  const DeviceTensor route = input(call, 1, kOp, "route");
  const DeviceTensor out = output(call, kOp);
  const int64_t cols = kit::check_moe_combine(y, route, out);
  device.activate();
  launch_moe_combine(y.as<const float>(), route.as<const float>(), out.as<float>(), y.rows(), route.cols() / 2, cols,
                     device.stream());
}

}  // namespace tessera::cuda
