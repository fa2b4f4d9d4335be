// RMS_NORM and LAYER_NORM (groups and per-group gains as the ABI states), checked by
// the kit, one thread block per normalised vector.
#include <cstdint>
#include <string>

#include <tessera/kit/op_params.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

void norm(CudaDevice& device, const tsr_op_call& call, const char* op, bool layer) {
  // Layer norm's weight is optional (a norm without parameters), and its bias follows it.
  expect_input_count(call, layer ? 1 : 2, layer ? 3 : 2, op);
  const DeviceTensor x = input(call, 0, op, "x");
  DeviceTensor w, b;
  if (call.n_inputs > 1) w = input(call, 1, op, "w");
  if (call.n_inputs > 2) b = input(call, 2, op, "b");
  const DeviceTensor out = output(call, op);
  const auto& params = params_of<tsr_norm_params>(call, op);
  const bool has_weight = call.n_inputs > 1, has_bias = call.n_inputs > 2;
  const kit::NormLayout layout =
      kit::check_norm(x, has_weight ? &w : nullptr, has_bias ? &b : nullptr, out, params, op);
  if (layout.group == 0 || x.rows() == 0) return;  // nothing to normalise
  if (x.rows() * (x.cols() / layout.group) > INT32_MAX) {
    fail(op, "x " + shape_label(x) + " has more than 2^31 vectors to normalise, too many for one launch");
  }
  NormLaunch n{};
  n.x = x.as<const float>();
  n.w = has_weight ? w.as<const float>() : nullptr;
  n.b = has_bias ? b.as<const float>() : nullptr;
  n.out = out.as<float>();
  n.groups_per_row = x.cols() / layout.group;
  n.vectors = x.rows() * n.groups_per_row;
  n.group = layout.group;
  n.param_stride = layout.param_stride;
  n.eps = params.eps;
  n.weight_plus_one = params.weight_plus_one != 0;
  n.layer = layer;
  device.activate();
  launch_norm(n, device.stream());
}

}  // namespace

void rms_norm(CudaDevice& device, const tsr_op_call& call) { norm(device, call, "rms_norm", false); }

void layer_norm(CudaDevice& device, const tsr_op_call& call) { norm(device, call, "layer_norm", true); }

}  // namespace tessera::cuda
