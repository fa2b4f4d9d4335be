// The ABI v2 activations (GELU_TANH, RELU, RELU_SQR, SOFTCAP): the reference kernels at
// hand-computed points, on random inputs against the header's formulas evaluated here
// in double (tolerance 1e-6 relative to the largest output), and their error paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "backends/cpu/ops/elementwise.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

constexpr float kTol = 1e-6f;

class Activations : public ::testing::Test {
 protected:
  // Runs a one-input kernel on `x` and returns its output.
  std::vector<float> apply(KernelBody body, tsr_op op, const void* params, const HostTensor& x) {
    HostTensor out(TSR_DTYPE_F32, {x.desc().shape[0], x.desc().shape[1]});
    EXPECT_EQ(run_kernel(device_, body, op, params, {&x}, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  // The kernel on 7 x 37 values in [-6, 6) against `formula` applied here.
  double random_error(KernelBody body, tsr_op op, const void* params, const std::function<double(double)>& formula) {
    const std::vector<float> values = random_values(7 * 37, 5, -6.0f, 6.0f);
    std::vector<float> expected;
    for (float v : values) expected.push_back(static_cast<float>(formula(v)));
    return relative_error(apply(body, op, params, HostTensor::f32({7, 37}, values)), expected);
  }
  std::string fails(KernelBody body, tsr_op op, const void* params) {
    const auto x = HostTensor::f32({1, 2}, {1, 2});
    HostTensor out(TSR_DTYPE_F32, {1, 2});
    EXPECT_EQ(run_kernel(device_, body, op, params, {&x}, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

TEST_F(Activations, GeluTanhAtKnownPoints) {
  const auto x = HostTensor::f32({1, 5}, {1, -1, 2, -3, 0});
  EXPECT_THAT(apply(gelu_tanh_ref, TSR_OP_GELU_TANH, nullptr, x),
              Pointwise(FloatNear(kTol), {0.84119199f, -0.15880801f, 1.95459769f, -0.00363739f, 0.0f}));
}

TEST_F(Activations, GeluTanhMatchesTheFormulaOnRandomInputs) {
  EXPECT_LT(random_error(gelu_tanh_ref, TSR_OP_GELU_TANH, nullptr, gelu_tanh), 1e-6);
}

TEST_F(Activations, GeluTanhSaturatesWithoutOverflow) {
  // x^3 overflows f32 at 1e13; the output must still be x and 0.
  const auto x = HostTensor::f32({1, 2}, {1e13f, -1e13f});
  EXPECT_THAT(apply(gelu_tanh_ref, TSR_OP_GELU_TANH, nullptr, x), ElementsAre(1e13f, 0.0f));
}

TEST_F(Activations, ReluKeepsPositivesAndZeroesTheRest) {
  const auto x = HostTensor::f32({1, 4}, {1.5f, -2, 0, -0.0f});
  EXPECT_THAT(apply(relu_ref, TSR_OP_RELU, nullptr, x), ElementsAre(1.5f, 0, 0, 0));
}

TEST_F(Activations, ReluMatchesTheFormulaOnRandomInputs) {
  EXPECT_EQ(random_error(relu_ref, TSR_OP_RELU, nullptr, [](double x) { return std::max(x, 0.0); }), 0.0);
}

TEST_F(Activations, ReluSqrSquaresThePositivePart) {
  const auto x = HostTensor::f32({1, 4}, {1.5f, -2, 3, 0});
  EXPECT_THAT(apply(relu_sqr_ref, TSR_OP_RELU_SQR, nullptr, x), ElementsAre(2.25f, 0, 9, 0));
}

TEST_F(Activations, ReluSqrMatchesTheFormulaOnRandomInputs) {
  const auto formula = [](double x) { return x > 0 ? x * x : 0.0; };
  EXPECT_EQ(random_error(relu_sqr_ref, TSR_OP_RELU_SQR, nullptr, formula), 0.0);
}

TEST_F(Activations, SoftcapAtKnownPoints) {
  const tsr_scale_params p{2.0f};
  const auto x = HostTensor::f32({1, 5}, {2, -1, 0.5f, 0, -1000});
  // 2 tanh(x / 2); a large input stays at the cap
  EXPECT_THAT(apply(softcap_ref, TSR_OP_SOFTCAP, &p, x),
              Pointwise(FloatNear(kTol), {1.52318831f, -0.92423431f, 0.48983732f, 0.0f, -2.0f}));
}

TEST_F(Activations, SoftcapMatchesTheFormulaOnRandomInputs) {
  const tsr_scale_params p{3.5f};
  const auto formula = [](double x) { return 3.5 * std::tanh(x / 3.5); };
  EXPECT_LT(random_error(softcap_ref, TSR_OP_SOFTCAP, &p, formula), 1e-6);
}

TEST_F(Activations, SoftcapRejectsAScaleThatIsNotPositive) {
  const tsr_scale_params p{0.0f};
  EXPECT_THAT(fails(softcap_ref, TSR_OP_SOFTCAP, &p),
              StrEq("softcap: scale must be positive and finite, got 0.000000"));
}

TEST_F(Activations, SoftcapRejectsMissingParams) {
  EXPECT_THAT(fails(softcap_ref, TSR_OP_SOFTCAP, nullptr), StrEq("softcap: params are missing"));
}

TEST_F(Activations, ReluRejectsAnOutputOfAnotherShape) {
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  HostTensor out(TSR_DTYPE_F32, {2, 1});
  EXPECT_EQ(run_kernel(device_, relu_ref, TSR_OP_RELU, nullptr, {&x}, out), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device_.last_error(), StrEq("relu: out has shape [2, 1], expected [1, 2]"));
}

}  // namespace
}  // namespace tessera::cpu::test
