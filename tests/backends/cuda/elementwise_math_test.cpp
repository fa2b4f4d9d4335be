// The CUDA element-wise arithmetic (backends/cuda/ops/elementwise_math.h), compiled for
// the host, against the CPU backend's reference kernels on random inputs: the formulas
// the device evaluates are checked in CI without a GPU. Tolerance: the largest error
// relative to the largest reference value, 2e-6 (f32 rounding of a few operations; the
// reference evaluates some activations in double).
#include "backends/cuda/ops/elementwise_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/host_tensor.h"
#include "backends/cpu/ops/elementwise.h"

namespace tessera::cuda {
namespace {

using cpu::test::HostTensor;
using cpu::test::random_values;
using cpu::test::relative_error;

constexpr double kTolerance = 2e-6;

struct UnaryCase {
  const char* name;
  UnaryOp op;
  tsr_op abi_op;
  cpu::KernelBody reference;
  float p0, p1;
};

std::vector<float> reference_unary(const UnaryCase& c, const std::vector<float>& x) {
  static cpu::CpuDevice device(1);
  const HostTensor in = HostTensor::f32({static_cast<int64_t>(x.size())}, x);
  HostTensor out(TSR_DTYPE_F32, {static_cast<int64_t>(x.size())});
  tsr_scale_params scale{c.p0};
  tsr_affine_params affine{c.p0, c.p1};
  tsr_clamp_params clamp{c.p0, c.p1};
  const void* params = c.op == UnaryOp::affine ? static_cast<const void*>(&affine)
                       : c.op == UnaryOp::clamp ? static_cast<const void*>(&clamp)
                                                : static_cast<const void*>(&scale);
  EXPECT_EQ(cpu::test::run_kernel(device, c.reference, c.abi_op, params, {&in}, out), TSR_OK) << device.last_error();
  return out.to_f32();
}

class UnaryMath : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryMath, MatchesTheCpuReference) {
  const UnaryCase& c = GetParam();
  const std::vector<float> x = random_values(4099, 7, -9.0f, 9.0f);
  std::vector<float> got(x.size());
  for (size_t i = 0; i < x.size(); ++i) got[i] = unary_of(c.op, x[i], c.p0, c.p1);
  EXPECT_LE(relative_error(got, reference_unary(c, x)), kTolerance);
}

INSTANTIATE_TEST_SUITE_P(
    EveryUnaryOp, UnaryMath,
    ::testing::Values(UnaryCase{"silu", UnaryOp::silu, TSR_OP_SILU, cpu::silu_ref, 0, 0},
                      UnaryCase{"gelu", UnaryOp::gelu, TSR_OP_GELU, cpu::gelu_ref, 0, 0},
                      UnaryCase{"gelu_tanh", UnaryOp::gelu_tanh, TSR_OP_GELU_TANH, cpu::gelu_tanh_ref, 0, 0},
                      UnaryCase{"relu", UnaryOp::relu, TSR_OP_RELU, cpu::relu_ref, 0, 0},
                      UnaryCase{"relu_sqr", UnaryOp::relu_sqr, TSR_OP_RELU_SQR, cpu::relu_sqr_ref, 0, 0},
                      UnaryCase{"scale", UnaryOp::scale, TSR_OP_SCALE, cpu::scale_ref, -0.375f, 0},
                      UnaryCase{"softcap", UnaryOp::softcap, TSR_OP_SOFTCAP, cpu::softcap_ref, 5.0f, 0},
                      UnaryCase{"affine", UnaryOp::affine, TSR_OP_AFFINE, cpu::affine_ref, 1.5f, -0.25f},
                      UnaryCase{"clamp", UnaryOp::clamp, TSR_OP_CLAMP, cpu::clamp_ref, -2.0f, 3.0f}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(UnaryMath, ClampKeepsNaNAndInfiniteBounds) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(unary_of(UnaryOp::clamp, nan, -1.0f, 1.0f)));
  EXPECT_EQ(unary_of(UnaryOp::clamp, -5.0f, -1.0f, 1.0f), -1.0f);
  EXPECT_EQ(unary_of(UnaryOp::clamp, 5.0f, -inf, inf), 5.0f);
}

struct BinaryCase {
  const char* name;
  BinaryOp op;
  tsr_op abi_op;
  cpu::KernelBody reference;
};

class BinaryMath : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryMath, MatchesTheCpuReference) {
  const BinaryCase& c = GetParam();
  static cpu::CpuDevice device(1);
  const std::vector<float> a = random_values(3 * 67, 8, -6.0f, 6.0f), b = random_values(3 * 67, 9, -2.0f, 2.0f);
  const HostTensor ta = HostTensor::f32({3, 67}, a), tb = HostTensor::f32({3, 67}, b);
  HostTensor out(TSR_DTYPE_F32, {3, 67});
  ASSERT_EQ(cpu::test::run_kernel(device, c.reference, c.abi_op, nullptr, {&ta, &tb}, out), TSR_OK)
      << device.last_error();
  std::vector<float> got(a.size());
  for (size_t i = 0; i < a.size(); ++i) got[i] = binary_of(c.op, a[i], b[i]);
  EXPECT_LE(relative_error(got, out.to_f32()), kTolerance);
}

INSTANTIATE_TEST_SUITE_P(EveryBinaryOp, BinaryMath,
                         ::testing::Values(BinaryCase{"add", BinaryOp::add, TSR_OP_ADD, cpu::add_ref},
                                           BinaryCase{"mul", BinaryOp::mul, TSR_OP_MUL, cpu::mul_ref},
                                           BinaryCase{"sub", BinaryOp::sub, TSR_OP_SUB, cpu::sub_ref},
                                           BinaryCase{"swiglu", BinaryOp::swiglu, TSR_OP_SWIGLU, cpu::swiglu_ref}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::cuda
