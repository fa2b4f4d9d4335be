// ROPE: x, out [T, n_heads * head_dim] f32, pos [T] i32, optional freq_factors f32
// [n_rot / 2]; one invocation per element. The per-call terms (kit/rope_terms.h) come
// from the host, in double; Llama 3.1's bands and YaRN's ramp are applied in the shader.
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>
#include <tessera/kit/rope_terms.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "rope";

struct Push {  // rope.comp
  VkDeviceAddress x, pos, out;
  uint32_t n_tokens, n_heads, head_dim, n_rot, neox;
  float freq_scale;
  float log2_theta_step;
  float ext_factor;
  float yarn_low, yarn_high;
  float magnitude;
  uint32_t has_freq_factors;     // here, not after the address: no padding bytes
  VkDeviceAddress freq_factors;  // read only when has_freq_factors
  float llama3_factor;  // 0: no Llama 3.1 scaling
  float llama3_low, llama3_high;
  float llama3_ctx_per_turn;  // n_ctx_orig / (2 pi): times a frequency, n_ctx_orig / wavelength
};

// The device address of the optional input 2, freq_factors f32 [n_rot / 2], or 0.
VkDeviceAddress freq_factors_address(const tsr_op_call& call, const tsr_rope_params& p) {
  if (call.n_inputs < 3) return 0;
  const DeviceTensor factors = input(call, 2, kOp, "freq_factors");
  kit::check_rope_factors(factors, p);
  return factors.address;
}

}  // namespace

void rope(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 3, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");      // [T, n_heads * head_dim]
  const DeviceTensor pos = input(call, 1, kOp, "pos");  // [T]
  const DeviceTensor out = output(call, kOp);
  const auto& p = params_of<tsr_rope_params>(call, kOp);
  const int64_t n_tokens = kit::check_rope(x, pos, out, p);
  const VkDeviceAddress freq_factors = freq_factors_address(call, p);

  const kit::RopeTerms terms = kit::rope_terms(p);
  const bool llama3 = p.llama3_factor > 0.0f;
  const Push push{x.address, pos.address, out.address, static_cast<uint32_t>(n_tokens),
                  static_cast<uint32_t>(p.n_heads), static_cast<uint32_t>(p.head_dim), static_cast<uint32_t>(p.n_rot),
                  p.pairing == TSR_ROPE_NEOX ? 1u : 0u, p.freq_scale, terms.log2_theta_step,
                  p.ext_factor, terms.yarn_low, terms.yarn_high, terms.magnitude, call.n_inputs >= 3 ? 1u : 0u, freq_factors,
                  llama3 ? p.llama3_factor : 0.0f, llama3 ? p.llama3_low_freq_factor : 0.0f,
                  llama3 ? p.llama3_high_freq_factor : 0.0f,
                  terms.llama3_ctx_per_turn};
  const Grid grid = grid_for(device, ceil_div(static_cast<uint64_t>(x.elements()), kElementwiseGroup), kOp);
  device.dispatch(make_dispatch(ShaderId::rope, {kElementwiseGroup}, push, grid));
}

}  // namespace tessera::vulkan
