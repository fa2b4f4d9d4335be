// Element-wise ops on f32: ADD, MUL, SUB and SWIGLU (two inputs), SILU, GELU,
// GELU_TANH, RELU, RELU_SQR, SCALE, SOFTCAP, AFFINE and CLAMP (one input).
#include <cmath>
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

// a [rows, cols]; b the same shape, or [cols] broadcast over rows (add, mul, sub), or
// exactly the same shape (swiglu's gate and up).
void binary(CudaDevice& device, const tsr_op_call& call, const char* op, BinaryOp kind) {
  const bool gated = kind == BinaryOp::swiglu;
  const kit::BinaryRoles roles = kit::binary_roles(gated);
  expect_input_count(call, 2, 2, op);
  const DeviceTensor a = input(call, 0, op, roles.a);
  const DeviceTensor b = input(call, 1, op, roles.b);
  const DeviceTensor out = output(call, op);
  const bool broadcast = kit::check_binary_op(a, b, out, op, gated);
  device.activate();
  launch_binary(kind, a.as<const float>(), b.as<const float>(), out.as<float>(), a.elements(), a.cols(), broadcast,
                device.stream());
}

void unary(CudaDevice& device, const tsr_op_call& call, const char* op, UnaryOp kind, float p0 = 0.0f,
           float p1 = 0.0f) {
  expect_input_count(call, 1, 1, op);
  const DeviceTensor x = input(call, 0, op, "x");
  const DeviceTensor out = output(call, op);
  kit::check_unary(x, out, op);
  device.activate();
  launch_unary(kind, x.as<const float>(), out.as<float>(), x.elements(), p0, p1, device.stream());
}

}  // namespace

void add(CudaDevice& device, const tsr_op_call& call) { binary(device, call, "add", BinaryOp::add); }
void mul(CudaDevice& device, const tsr_op_call& call) { binary(device, call, "mul", BinaryOp::mul); }
void sub(CudaDevice& device, const tsr_op_call& call) { binary(device, call, "sub", BinaryOp::sub); }
void swiglu(CudaDevice& device, const tsr_op_call& call) { binary(device, call, "swiglu", BinaryOp::swiglu); }
void silu(CudaDevice& device, const tsr_op_call& call) { unary(device, call, "silu", UnaryOp::silu); }
void gelu(CudaDevice& device, const tsr_op_call& call) { unary(device, call, "gelu", UnaryOp::gelu); }
void gelu_tanh(CudaDevice& device, const tsr_op_call& call) { unary(device, call, "gelu_tanh", UnaryOp::gelu_tanh); }
void relu(CudaDevice& device, const tsr_op_call& call) { unary(device, call, "relu", UnaryOp::relu); }
void relu_sqr(CudaDevice& device, const tsr_op_call& call) { unary(device, call, "relu_sqr", UnaryOp::relu_sqr); }

void scale(CudaDevice& device, const tsr_op_call& call) {
  unary(device, call, "scale", UnaryOp::scale, params_of<tsr_scale_params>(call, "scale").scale);
}

void softcap(CudaDevice& device, const tsr_op_call& call) {
  const float cap = params_of<tsr_scale_params>(call, "softcap").scale;
  if (!(cap > 0.0f) || !std::isfinite(cap)) {
    fail("softcap", "scale must be positive and finite, got " + std::to_string(cap));
  }
  unary(device, call, "softcap", UnaryOp::softcap, cap);
}

void affine(CudaDevice& device, const tsr_op_call& call) {
  const tsr_affine_params& p = params_of<tsr_affine_params>(call, "affine");
  unary(device, call, "affine", UnaryOp::affine, p.scale, p.bias);
}

void clamp(CudaDevice& device, const tsr_op_call& call) {
  const tsr_clamp_params& p = params_of<tsr_clamp_params>(call, "clamp");
  kit::check_clamp_params(p);
  unary(device, call, "clamp", UnaryOp::clamp, p.lo, p.hi);
}

}  // namespace tessera::cuda
