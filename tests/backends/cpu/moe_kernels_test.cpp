// The mixture-of-experts kernels MOE_ROUTE, MOE_MATMUL and MOE_COMBINE: the reference
// kernels at hand-computed points, the optimised MOE_MATMUL against the reference on
// random inputs of every weight family, and the error paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>

#include "backends/cpu/ops/moe.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

tsr_moe_route_params route_params(int32_t k, int32_t gating = TSR_MOE_SOFTMAX, int32_t normalize = 0,
                                  float scale = 1.0f) {
  return {k, gating, normalize, scale};
}

class Moe : public ::testing::Test {
 protected:
  std::vector<float> run(KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& in,
                         std::vector<int64_t> out_shape) {
    HostTensor out(TSR_DTYPE_F32, std::move(out_shape));
    EXPECT_EQ(run_kernel(device_, body, op, params, in, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  std::string fails(KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& in,
                    std::vector<int64_t> out_shape) {
    HostTensor out(TSR_DTYPE_F32, std::move(out_shape));
    EXPECT_EQ(run_kernel(device_, body, op, params, in, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{2};
};

// ---- MOE_ROUTE ----------------------------------------------------------------------------

TEST_F(Moe, RouteSoftmaxChoosesTheBestAndRenormalises) {
  const auto logits = HostTensor::f32({1, 4}, {0, 2, 1, -1});
  const auto p = route_params(2, TSR_MOE_SOFTMAX, 1);
  const double e2 = std::exp(2.0), e1 = std::exp(1.0);
  EXPECT_THAT(run(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {1, 4}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{1, 2, float(e2 / (e2 + e1)), float(e1 / (e2 + e1))}));
}

TEST_F(Moe, RouteWithoutNormalisingKeepsTheSoftmaxOverAllExperts) {
  const auto logits = HostTensor::f32({2, 3}, {0, 0, std::log(2.0f), 3, 1, 2});
  const auto p = route_params(1);
  const double s = std::exp(3.0) + std::exp(1.0) + std::exp(2.0);
  EXPECT_THAT(run(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {2, 2}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{2, 0.5f, 0, float(std::exp(3.0) / s)}));
}

TEST_F(Moe, RouteSigmoidWeightsAreScaled) {
  const auto logits = HostTensor::f32({1, 3}, {-1, 0.5f, 0});
  const auto p = route_params(2, TSR_MOE_SIGMOID, 0, 2.5f);
  const float s05 = 1.0f / (1.0f + std::exp(-0.5f));
  EXPECT_THAT(run(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {1, 4}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{1, 2, 2.5f * s05, 2.5f * 0.5f}));
}

TEST_F(Moe, RouteTiesGoToTheLowerExpert) {
  const auto logits = HostTensor::f32({1, 4}, {1, 3, 3, 3});
  const auto p = route_params(2);
  const std::vector<float> got = run(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {1, 4});
  EXPECT_THAT(std::vector<float>(got.begin(), got.begin() + 2), ElementsAre(1, 2));
}

TEST_F(Moe, RouteRejectsMoreChosenThanExperts) {
  const auto logits = HostTensor::f32({1, 3}, {0, 1, 2});
  const auto p = route_params(4);
  EXPECT_THAT(fails(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {1, 8}),
              StrEq("moe_route: k is 4, expected 1 .. 3 (the experts)"));
}

TEST_F(Moe, RouteRejectsAnOutputOfTheWrongWidth) {
  const auto logits = HostTensor::f32({1, 3}, {0, 1, 2});
  const auto p = route_params(2);
  EXPECT_THAT(fails(moe_route_ref, TSR_OP_MOE_ROUTE, &p, {&logits}, {1, 3}),
              StrEq("moe_route: out has shape [1, 3], expected [1, 4]"));
}

// ---- MOE_MATMUL ---------------------------------------------------------------------------

// Three experts [2, 2]: expert e is e + 1 times the identity, plus 10 in the corner.
HostTensor three_experts() {
  return HostTensor::f32({3, 2, 2}, {1, 10, 0, 1, 2, 10, 0, 2, 3, 10, 0, 3});
}

TEST_F(Moe, MatmulMultipliesEachTokenByItsChosenExperts) {
  const auto x = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  const auto route = HostTensor::f32({2, 4}, {2, 0, 0.5f, 0.5f, 1, 2, 0.5f, 0.5f});
  const HostTensor w = three_experts();
  // token 0: experts 2 then 0; token 1: experts 1 then 2.
  EXPECT_THAT(run(moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {2, 4}),
              ElementsAre(3 + 20, 6, 1 + 20, 2, 6 + 40, 8, 9 + 40, 12));
}

TEST_F(Moe, MatmulGivesEachSlotItsOwnColumnsOfAWideInput) {
  const auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});  // slot 0 reads (1, 2), slot 1 (3, 4)
  const auto route = HostTensor::f32({1, 4}, {0, 1, 0.5f, 0.5f});
  const HostTensor w = three_experts();
  EXPECT_THAT(run(moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {1, 4}),
              ElementsAre(1 + 20, 2, 6 + 40, 8));
}

TEST_F(Moe, MatmulRejectsARouteNamingAMissingExpert) {
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  const auto route = HostTensor::f32({1, 2}, {3, 1});
  const HostTensor w = three_experts();
  EXPECT_THAT(fails(moe_matmul_fast, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {1, 2}),
              StrEq("moe_matmul: route names expert 3.000000, expected a whole number 0 .. 2"));
}

TEST_F(Moe, MatmulRejectsAFractionalExpert) {
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  const auto route = HostTensor::f32({1, 2}, {0.5f, 1});
  const HostTensor w = three_experts();
  EXPECT_THAT(fails(moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {1, 2}),
              StrEq("moe_matmul: route names expert 0.500000, expected a whole number 0 .. 2"));
}

TEST_F(Moe, MatmulRejectsAnInputOfTheWrongWidth) {
  const auto x = HostTensor::f32({1, 3}, {1, 2, 3});
  const auto route = HostTensor::f32({1, 4}, {0, 1, 0.5f, 0.5f});
  const HostTensor w = three_experts();
  EXPECT_THAT(fails(moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {1, 4}),
              StrEq("moe_matmul: x has 3 columns, expected K = 2 or k * K = 4"));
}

TEST_F(Moe, MatmulRejectsExpertsThatAreNotStacked) {
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  const auto route = HostTensor::f32({1, 2}, {0, 1});
  const auto w = HostTensor::f32({2, 2}, {1, 0, 0, 1});
  EXPECT_THAT(fails(moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, {1, 2}),
              StrEq("moe_matmul: experts has shape [2, 2], expected [E, M, K]"));
}

struct MatmulCase {
  tsr_dtype dtype;
  int64_t tokens;
  bool per_slot;
  double tolerance;  // relative to the largest output
};

// Names the case in test listings (the default prints the struct's bytes, padding too).
void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << kit::dtype_label(c.dtype) << " x " << c.tokens << (c.per_slot ? " per slot" : "");
}

class MoeMatmulFast : public ::testing::TestWithParam<MatmulCase> {};

// Experts nobody chose hold NaN: the optimised kernel reads only the chosen ones.
TEST_P(MoeMatmulFast, MatchesTheReferenceAndReadsOnlyChosenExperts) {
  const MatmulCase& c = GetParam();
  constexpr int64_t kExperts = 6, kSlots = 2, kM = 24, kK = 256;
  std::vector<float> route = random_route(c.tokens, kSlots, 4, 7);  // experts 0..3 only
  std::vector<float> wv = random_values(static_cast<size_t>(kExperts * kM * kK), 8);
  std::fill(wv.begin() + 4 * kM * kK, wv.end(), std::numeric_limits<float>::quiet_NaN());
  const HostTensor w = HostTensor::from_f32(c.dtype, {kExperts, kM, kK}, wv);
  const int64_t x_cols = c.per_slot ? kSlots * kK : kK;
  const auto x = HostTensor::f32({c.tokens, x_cols}, random_values(static_cast<size_t>(c.tokens * x_cols), 9));
  const auto r = HostTensor::f32({c.tokens, 2 * kSlots}, route);

  CpuDevice one(1), two(2);
  HostTensor want(TSR_DTYPE_F32, {c.tokens, kSlots * kM}), got(TSR_DTYPE_F32, {c.tokens, kSlots * kM});
  ASSERT_EQ(run_kernel(one, moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &r}, want), TSR_OK)
      << one.last_error();
  ASSERT_EQ(run_kernel(two, moe_matmul_fast, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &r}, got), TSR_OK)
      << two.last_error();
  const std::vector<float> wantv = want.to_f32(), gotv = got.to_f32();
  for (const float v : gotv) ASSERT_TRUE(std::isfinite(v));
  EXPECT_LE(relative_error(gotv, wantv), c.tolerance);
}

// f32 and f16 weights multiply f32 activations; bf16 prefill may round them to bf16
// first (AVX512-BF16, matmul_bf16.h: 1.7e-3 measured here), the block formats to 8 bits
// (as MATMUL does), hence their wider tolerances.
INSTANTIATE_TEST_SUITE_P(
    Dtypes, MoeMatmulFast,
    ::testing::Values(MatmulCase{TSR_DTYPE_F32, 1, false, 1e-5}, MatmulCase{TSR_DTYPE_F32, 37, false, 1e-5},
                      MatmulCase{TSR_DTYPE_F32, 13, true, 1e-5}, MatmulCase{TSR_DTYPE_F16, 5, false, 1e-3},
                      MatmulCase{TSR_DTYPE_BF16, 37, true, 8e-3}, MatmulCase{TSR_DTYPE_Q8_0, 1, false, 2e-2},
                      MatmulCase{TSR_DTYPE_Q8_0, 37, true, 2e-2}, MatmulCase{TSR_DTYPE_Q4_0, 13, false, 2e-2},
                      MatmulCase{TSR_DTYPE_Q4_K, 1, true, 2e-2}, MatmulCase{TSR_DTYPE_Q4_K, 37, false, 2e-2},
                      MatmulCase{TSR_DTYPE_Q6_K, 5, false, 2e-2}, MatmulCase{TSR_DTYPE_IQ4_XS, 13, true, 2e-2}),
    [](const ::testing::TestParamInfo<MatmulCase>& info) {
      const MatmulCase& c = info.param;
      return std::string(kit::dtype_label(c.dtype)) + "_t" + std::to_string(c.tokens) + (c.per_slot ? "_wide" : "");
    });

// ---- MOE_COMBINE --------------------------------------------------------------------------

TEST_F(Moe, CombineSumsTheSlotsWithTheirWeights) {
  const auto y = HostTensor::f32({2, 4}, {1, 2, 10, 20, 3, 4, 30, 40});
  const auto route = HostTensor::f32({2, 4}, {0, 1, 0.25f, 0.75f, 2, 0, 1, 0});
  EXPECT_THAT(run(moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, {2, 2}),
              ElementsAre(0.25f + 7.5f, 0.5f + 15, 3, 4));
}

TEST_F(Moe, CombineRejectsOutputsThatDoNotSplitIntoTheSlots) {
  const auto y = HostTensor::f32({1, 5}, {1, 2, 3, 4, 5});
  const auto route = HostTensor::f32({1, 4}, {0, 1, 0.5f, 0.5f});
  EXPECT_THAT(fails(moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, {1, 2}),
              StrEq("moe_combine: y has 5 columns, not k = 2 equal parts"));
}

TEST_F(Moe, CombineRejectsARouteOfAnotherStep) {
  const auto y = HostTensor::f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const auto route = HostTensor::f32({1, 4}, {0, 1, 0.5f, 0.5f});
  EXPECT_THAT(fails(moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, {2, 2}),
              StrEq("moe_combine: route has 1 rows but the tokens are 2"));
}

}  // namespace
}  // namespace tessera::cpu::test
