// Element-wise ops on f32: ADD, MUL, SWIGLU and SUB (binary.comp), SILU, GELU, SCALE,
// GELU_TANH, RELU, RELU_SQR, SOFTCAP, AFFINE and CLAMP (unary.comp); one invocation per
// element.
#include <cmath>
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

enum BinaryOp : uint32_t { kAdd = 0, kMul = 1, kSwiglu = 2, kSub = 3 };
// unary.comp's OP specialisation constant.
enum UnaryOp : uint32_t {
  kSilu = 0, kGelu = 1, kScale = 2, kGeluTanh = 3, kRelu = 4, kReluSqr = 5, kSoftcap = 6, kAffine = 7, kClamp = 8
};

struct BinaryPush {  // binary.comp
  VkDeviceAddress a, b, out;
  uint32_t n, cols, broadcast;
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

struct UnaryPush {  // unary.comp
  VkDeviceAddress x, out;
  uint32_t n;
  float scale;          // SCALE, SOFTCAP, AFFINE; CLAMP's lo
  float bias = 0.0f;    // AFFINE; CLAMP's hi
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

Grid element_grid(const VulkanDevice& device, int64_t n, const char* op) {
  return grid_for(device, ceil_div(static_cast<uint64_t>(n), kElementwiseGroup), op);
}

// a [rows, cols]; b the same shape, or [cols] broadcast over rows (add, mul, sub) or
// exactly the same shape (swiglu's gate and up).
void binary(VulkanDevice& device, const tsr_op_call& call, const char* op, BinaryOp kind) {
  const bool gated = kind == kSwiglu;
  const kit::BinaryRoles roles = kit::binary_roles(gated);
  expect_input_count(call, 2, 2, op);
  const DeviceTensor a = input(call, 0, op, roles.a);
  const DeviceTensor b = input(call, 1, op, roles.b);
  const DeviceTensor out = output(call, op);
  const bool broadcast = kit::check_binary_op(a, b, out, op, gated);
  BinaryPush p{a.address, b.address, out.address, static_cast<uint32_t>(a.elements()),
               static_cast<uint32_t>(a.cols()), broadcast ? 1u : 0u};
  device.dispatch(make_dispatch(ShaderId::binary, {kElementwiseGroup, kind}, p, element_grid(device, a.elements(), op)));
}

void unary(VulkanDevice& device, const tsr_op_call& call, const char* op, UnaryOp kind, float factor,
           float bias = 0.0f) {
  expect_input_count(call, 1, 1, op);
  const DeviceTensor x = input(call, 0, op, "x");
  const DeviceTensor out = output(call, op);
  kit::check_unary(x, out, op);
  UnaryPush p{x.address, out.address, static_cast<uint32_t>(x.elements()), factor, bias};
  device.dispatch(make_dispatch(ShaderId::unary, {kElementwiseGroup, kind}, p, element_grid(device, x.elements(), op)));
}

}  // namespace

void add(VulkanDevice& device, const tsr_op_call& call) { binary(device, call, "add", kAdd); }

void mul(VulkanDevice& device, const tsr_op_call& call) { binary(device, call, "mul", kMul); }

void swiglu(VulkanDevice& device, const tsr_op_call& call) { binary(device, call, "swiglu", kSwiglu); }

void sub(VulkanDevice& device, const tsr_op_call& call) { binary(device, call, "sub", kSub); }

void silu(VulkanDevice& device, const tsr_op_call& call) { unary(device, call, "silu", kSilu, 1.0f); }

void gelu(VulkanDevice& device, const tsr_op_call& call) { unary(device, call, "gelu", kGelu, 1.0f); }

void scale(VulkanDevice& device, const tsr_op_call& call) {
  const float factor = params_of<tsr_scale_params>(call, "scale").scale;
  unary(device, call, "scale", kScale, factor);
}

void gelu_tanh(VulkanDevice& device, const tsr_op_call& call) { unary(device, call, "gelu_tanh", kGeluTanh, 1.0f); }

void relu(VulkanDevice& device, const tsr_op_call& call) { unary(device, call, "relu", kRelu, 1.0f); }

void relu_sqr(VulkanDevice& device, const tsr_op_call& call) { unary(device, call, "relu_sqr", kReluSqr, 1.0f); }

void softcap(VulkanDevice& device, const tsr_op_call& call) {
  const float cap = params_of<tsr_scale_params>(call, "softcap").scale;
  if (!(cap > 0.0f) || !std::isfinite(cap)) {
    fail("softcap", "scale must be positive and finite, got " + std::to_string(cap));
  }
  unary(device, call, "softcap", kSoftcap, cap);
}

void affine(VulkanDevice& device, const tsr_op_call& call) {
  const auto& p = params_of<tsr_affine_params>(call, "affine");
  unary(device, call, "affine", kAffine, p.scale, p.bias);
}

void clamp(VulkanDevice& device, const tsr_op_call& call) {
  const auto& p = params_of<tsr_clamp_params>(call, "clamp");
  kit::check_clamp_params(p);
  unary(device, call, "clamp", kClamp, p.lo, p.hi);
}

}  // namespace tessera::vulkan
