// RMS_NORM and LAYER_NORM reference kernels with ABI v2's groups (each run of `group`
// columns normalised on its own, with a weight of `group` entries or one per group), weight_plus_one and
// the optional layer-norm bias: hand-computed values, random inputs against the
// formulas evaluated here in double (tolerance 1e-6 relative to the largest output),
// and the error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/ops/norm.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

constexpr float kTol = 1e-6f;

class NormKernels : public ::testing::Test {
 protected:
  std::vector<float> run(KernelBody body, tsr_op op, const tsr_norm_params& p,
                         const std::vector<const HostTensor*>& in) {
    const tsr_tensor& x = in[0]->desc();
    HostTensor out(TSR_DTYPE_F32, {x.shape[0], x.shape[1]});
    EXPECT_EQ(run_kernel(device_, body, op, &p, in, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  std::string fails(KernelBody body, tsr_op op, const tsr_norm_params& p,
                    const std::vector<const HostTensor*>& in) {
    HostTensor out(TSR_DTYPE_F32, {in[0]->desc().shape[0], in[0]->desc().shape[1]});
    EXPECT_EQ(run_kernel(device_, body, op, &p, in, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

// The norms written out for one vector of n values: what the kernels must compute for
// every group of every row.
std::vector<double> rms_norm(const float* x, const float* w, int64_t n, float eps, bool plus_one) {
  double mean_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) mean_sq += double{x[i]} * x[i] / static_cast<double>(n);
  std::vector<double> y;
  for (int64_t i = 0; i < n; ++i) y.push_back(x[i] / std::sqrt(mean_sq + eps) * (plus_one ? 1.0 + w[i] : w[i]));
  return y;
}

std::vector<double> layer_norm(const float* x, const float* w, const float* b, int64_t n, float eps, bool plus_one) {
  double mean = 0.0, var = 0.0;
  for (int64_t i = 0; i < n; ++i) mean += x[i] / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean) / static_cast<double>(n);
  std::vector<double> y;
  for (int64_t i = 0; i < n; ++i) {
    y.push_back((x[i] - mean) / std::sqrt(var + eps) * (plus_one ? 1.0 + w[i] : w[i]) + (b ? b[i] : 0.0));
  }
  return y;
}

// ---- hand-computed -------------------------------------------------------------------

TEST_F(NormKernels, RmsNormNormalisesEachGroupOnItsOwn) {
  // Groups (3, 4) and (1, 1): rms sqrt(12.5) and 1; weight (1, 2) for both.
  auto x = HostTensor::f32({1, 4}, {3, 4, 1, 1});
  auto w = HostTensor::f32({2}, {1, 2});
  EXPECT_THAT(run(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(0.0f, false, 2), {&x, &w}),
              Pointwise(FloatNear(kTol), {0.84852814f, 2 * 1.13137085f, 1.0f, 2.0f}));
}

TEST_F(NormKernels, LayerNormGroupsWithWeightPlusOneAndBias) {
  // Groups (3, 4) and (1, 5) both normalise to (-1, 1); gains 1 + (0, 1), bias (10, 20).
  auto x = HostTensor::f32({1, 4}, {3, 4, 1, 5});
  auto w = HostTensor::f32({2}, {0, 1});
  auto b = HostTensor::f32({2}, {10, 20});
  EXPECT_THAT(run(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(0.0f, true, 2), {&x, &w, &b}),
              Pointwise(FloatNear(kTol), {9.0f, 22.0f, 9.0f, 22.0f}));
}

TEST_F(NormKernels, RmsNormTakesAGainPerGroup) {
  // Groups (3, 4) and (1, 1) as above, with gains (1, 2) and (3, 4): w [2 groups, 2].
  auto x = HostTensor::f32({1, 4}, {3, 4, 1, 1});
  auto w = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(run(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(0.0f, false, 2), {&x, &w}),
              Pointwise(FloatNear(kTol), {0.84852814f, 2 * 1.13137085f, 3.0f, 4.0f}));
}

TEST_F(NormKernels, LayerNormTakesAGainAndBiasPerGroup) {
  // Both groups normalise to (-1, 1); gains (1, 2), (3, 4); biases (10, 20), (30, 40).
  auto x = HostTensor::f32({1, 4}, {3, 4, 1, 5});
  auto w = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  auto b = HostTensor::f32({2, 2}, {10, 20, 30, 40});
  EXPECT_THAT(run(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(0.0f, false, 2), {&x, &w, &b}),
              Pointwise(FloatNear(kTol), {9.0f, 22.0f, 27.0f, 44.0f}));
}

TEST_F(NormKernels, LayerNormWithoutBiasAddsNothing) {
  // (1, 2, 3, 4): mean 2.5, var 1.25; gains (1, 1, 1, 0.5)
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto w = HostTensor::f32({4}, {1, 1, 1, 0.5f});
  EXPECT_THAT(run(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(0.0f, false), {&x, &w}),
              Pointwise(FloatNear(kTol), {-1.34164079f, -0.44721360f, 0.44721360f, 0.5f * 1.34164079f}));
}

TEST_F(NormKernels, LayerNormWithoutAWeightHasNoGain) {  // OLMo's norms have no parameters
  // (1, 2, 3, 4): mean 2.5, var 1.25; and weight_plus_one, without a weight, changes nothing
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  const std::vector<float> want = {-1.34164079f, -0.44721360f, 0.44721360f, 1.34164079f};
  EXPECT_THAT(run(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(0.0f, false), {&x}), Pointwise(FloatNear(kTol), want));
  EXPECT_THAT(run(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(0.0f, true), {&x}), Pointwise(FloatNear(kTol), want));
}

TEST_F(NormKernels, LayerNormWithoutAWeightEqualsAWeightOfOnes) {
  auto x = HostTensor::f32({5, 12}, random_values(60, 7, 2, 5));
  auto ones = HostTensor::f32({4}, {1, 1, 1, 1});
  const tsr_norm_params p = norm_params(1e-5f, false, 4);
  EXPECT_EQ(run(layer_norm_ref, TSR_OP_LAYER_NORM, p, {&x}), run(layer_norm_ref, TSR_OP_LAYER_NORM, p, {&x, &ones}));
}

TEST_F(NormKernels, RmsNormNeedsItsWeight) {
  HostTensor x(TSR_DTYPE_F32, {2, 6});
  EXPECT_THAT(fails(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(1e-5f, false), {&x}),
              StrEq("rms_norm: expects 2 inputs, got 1"));
}

TEST_F(NormKernels, GroupOfTheWholeRowEqualsGroupZero) {
  auto x = HostTensor::f32({3, 6}, random_values(18, 3));
  auto w = HostTensor::f32({6}, random_values(6, 4));
  EXPECT_EQ(run(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(1e-5f, false, 6), {&x, &w}),
            run(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(1e-5f, false, 0), {&x, &w}));
}

// ---- random inputs against the formulas ------------------------------------------------

struct GroupedCase {
  int64_t rows, groups, group;
  bool plus_one, bias;
  bool per_group = false;  // w and b hold a gain and bias per group: [groups, group]
};

class GroupedNorms : public NormKernels, public ::testing::WithParamInterface<GroupedCase> {
 protected:
  // x [rows, groups * group] around an offset mean, w and b [group] (or [groups, group]).
  void SetUp() override {
    const GroupedCase c = GetParam();
    cols_ = c.groups * c.group;
    x_ = HostTensor::f32({c.rows, cols_}, random_values(static_cast<size_t>(c.rows * cols_), 31, 1, 4));
    const std::vector<int64_t> params = c.per_group ? std::vector<int64_t>{c.groups, c.group} : std::vector<int64_t>{c.group};
    const auto n = static_cast<size_t>(c.per_group ? cols_ : c.group);
    w_ = HostTensor::f32(params, random_values(n, 32));
    b_ = HostTensor::f32(params, random_values(n, 33));
  }
  // `formula(x, offset)` applied to every group of every row; offset is where the
  // group's parameters start in w and b.
  template <class F>
  std::vector<float> expected(F formula) const {
    const GroupedCase c = GetParam();
    const std::vector<float> x = x_.to_f32();
    std::vector<float> all;
    for (int64_t v = 0; v < c.rows * c.groups; ++v) {
      const int64_t offset = c.per_group ? v % c.groups * c.group : 0;
      for (double y : formula(x.data() + v * c.group, offset)) all.push_back(static_cast<float>(y));
    }
    return all;
  }
  int64_t cols_ = 0;
  HostTensor x_{TSR_DTYPE_F32, {1}}, w_{TSR_DTYPE_F32, {1}}, b_{TSR_DTYPE_F32, {1}};
};

TEST_P(GroupedNorms, RmsNormMatchesTheFormula) {
  const GroupedCase c = GetParam();
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, static_cast<int32_t>(c.group));
  const std::vector<float> w = w_.to_f32();
  const auto want =
      expected([&](const float* x, int64_t o) { return rms_norm(x, w.data() + o, c.group, p.eps, c.plus_one); });
  EXPECT_LT(relative_error(run(rms_norm_ref, TSR_OP_RMS_NORM, p, {&x_, &w_}), want), 1e-6);
}

TEST_P(GroupedNorms, LayerNormMatchesTheFormula) {
  const GroupedCase c = GetParam();
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, static_cast<int32_t>(c.group));
  const std::vector<float> w = w_.to_f32(), b = b_.to_f32();
  const auto want = expected([&](const float* x, int64_t o) {
    return layer_norm(x, w.data() + o, c.bias ? b.data() + o : nullptr, c.group, p.eps, c.plus_one);
  });
  std::vector<const HostTensor*> inputs = {&x_, &w_};
  if (c.bias) inputs.push_back(&b_);
  EXPECT_LT(relative_error(run(layer_norm_ref, TSR_OP_LAYER_NORM, p, inputs), want), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GroupedNorms,
                         ::testing::Values(GroupedCase{5, 4, 16, false, false},  // per-head QK-norm
                                           GroupedCase{3, 7, 5, true, true}, GroupedCase{2, 1, 33, true, false},
                                           GroupedCase{4, 3, 1, false, true},
                                           GroupedCase{5, 4, 16, false, true, true},  // Command R+'s QK-norm
                                           GroupedCase{3, 7, 5, true, false, true}),
                         [](const auto& info) {
                           const GroupedCase& c = info.param;
                           return std::to_string(c.rows) + "x" + std::to_string(c.groups) + "_groups_of_" +
                                  std::to_string(c.group) + (c.plus_one ? "_plus_one" : "") + (c.bias ? "_bias" : "") +
                                  (c.per_group ? "_per_group" : "");
                         });

// ---- errors ----------------------------------------------------------------------------

TEST_F(NormKernels, GroupMustDivideTheRow) {
  HostTensor x(TSR_DTYPE_F32, {2, 6}), w(TSR_DTYPE_F32, {4});
  EXPECT_THAT(fails(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(1e-5f, false, 4), {&x, &w}),
              StrEq("rms_norm: group 4 does not divide the 6 columns of x"));
}

TEST_F(NormKernels, NegativeGroupIsRejected) {
  HostTensor x(TSR_DTYPE_F32, {2, 6}), w(TSR_DTYPE_F32, {6});
  EXPECT_THAT(fails(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(1e-5f, false, -3), {&x, &w}),
              StrEq("layer_norm: group must be >= 0, got -3"));
}

TEST_F(NormKernels, GroupedWeightMustHaveGroupOrRowEntries) {
  HostTensor x(TSR_DTYPE_F32, {2, 6}), w(TSR_DTYPE_F32, {5});
  EXPECT_THAT(fails(rms_norm_ref, TSR_OP_RMS_NORM, norm_params(1e-5f, false, 3), {&x, &w}),
              StrEq("rms_norm: w has shape [5], expected 3 elements, or 6 (a gain per group)"));
}

TEST_F(NormKernels, BiasFollowsAGainPerGroup) {
  HostTensor x(TSR_DTYPE_F32, {2, 6}), w(TSR_DTYPE_F32, {3, 2}), b(TSR_DTYPE_F32, {2});
  EXPECT_THAT(fails(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(1e-5f, false, 2), {&x, &w, &b}),
              StrEq("layer_norm: b has shape [2], expected 6 elements, as w has (a gain per group)"));
}

TEST_F(NormKernels, GroupedBiasMustHaveGroupEntries) {
  HostTensor x(TSR_DTYPE_F32, {2, 6}), w(TSR_DTYPE_F32, {2}), b(TSR_DTYPE_F32, {6});
  EXPECT_THAT(fails(layer_norm_ref, TSR_OP_LAYER_NORM, norm_params(1e-5f, false, 2), {&x, &w, &b}),
              StrEq("layer_norm: b has shape [6], expected 2 elements"));
}

}  // namespace
}  // namespace tessera::cpu::test
