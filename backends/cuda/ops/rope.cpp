// ROPE: x, out [T, n_heads * head_dim] f32, pos [T] i32, optional freq_factors f32
// [n_rot / 2]. The per-call terms (kit/rope_terms.h) are formed here, in double.
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>
#include <tessera/kit/rope_terms.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "rope";

}  // namespace

void rope(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 3, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");      // [T, n_heads * head_dim]
  const DeviceTensor pos = input(call, 1, kOp, "pos");  // [T]
  const DeviceTensor out = output(call, kOp);
  const auto& p = params_of<tsr_rope_params>(call, kOp);
  const int64_t n_tokens = kit::check_rope(x, pos, out, p);
  RopeLaunch r;
  if (call.n_inputs >= 3) {
    const DeviceTensor factors = input(call, 2, kOp, "freq_factors");
    kit::check_rope_factors(factors, p);
    r.freq_factors = factors.as<const float>();
  }
  r.x = x.as<const float>();
  r.pos = pos.as<const int32_t>();
  r.out = out.as<float>();
  r.n_tokens = n_tokens;
  r.n_heads = p.n_heads;
  r.head_dim = p.head_dim;
  r.n_rot = p.n_rot;
  r.neox = p.pairing == TSR_ROPE_NEOX;
  r.freq_scale = p.freq_scale;
  r.ext_factor = p.ext_factor;
  if (p.llama3_factor > 0.0f) {
    r.llama3_factor = p.llama3_factor;
    r.llama3_low = p.llama3_low_freq_factor;
    r.llama3_high = p.llama3_high_freq_factor;
  }
  r.terms = kit::rope_terms(p);
  device.activate();
  launch_rope(r, device.stream());
}

}  // namespace tessera::cuda
