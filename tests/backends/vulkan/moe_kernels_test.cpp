// The Vulkan mixture-of-experts kernels (MOE_ROUTE, MOE_MATMUL, MOE_COMBINE) against
// the CPU reference on random inputs at odd offsets: the route's experts exactly and its
// weights within 1e-5, the expert products of every weight family within 1e-4 of the
// largest output (both dequantise exactly and sum f32 products; only the order
// differs), the combination within 1e-6; and a route naming no expert, reported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "backends/cpu/ops/moe.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_route;
using cpu::test::random_values;
using cpu::test::relative_error;

struct RouteCase {
  std::string name;
  int64_t tokens, experts;
  tsr_moe_route_params p;
};

class MoeRoute : public VulkanParamTest<RouteCase> {};

TEST_P(MoeRoute, ChoosesTheReferenceExpertsAndWeights) {
  const RouteCase& c = GetParam();
  const HostTensor logits =
      HostTensor::f32({c.tokens, c.experts}, random_values(static_cast<size_t>(c.tokens * c.experts), 41, -4, 4));
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}});
  run_reference(cpu::moe_route_ref, TSR_OP_MOE_ROUTE, &c.p, {&logits}, ref);
  const std::vector<float> want = ref.to_f32();
  const std::vector<float> got = run_on_vulkan(TSR_OP_MOE_ROUTE, TSR_DTYPE_F32, &c.p, {&logits},
                                               HostTensor(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}}), {4, 68});
  ASSERT_EQ(got.size(), want.size());
  for (int64_t t = 0; t < c.tokens; ++t) {
    for (int32_t j = 0; j < 2 * c.p.k; ++j) {
      const size_t i = static_cast<size_t>(t * 2 * c.p.k + j);
      if (j < c.p.k) {
        EXPECT_EQ(got[i], want[i]) << "token " << t << " slot " << j;
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << "token " << t << " weight " << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MoeRoute,
    ::testing::Values(RouteCase{"softmax_top2_normalised", 37, 8, {2, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"softmax_top1", 5, 4, {1, TSR_MOE_SOFTMAX, 0, 1.0f}},
                      RouteCase{"softmax_top8_of_60", 13, 60, {8, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"sigmoid_top3_scaled", 9, 16, {3, TSR_MOE_SIGMOID, 0, 2.5f}}),
    [](const auto& info) { return info.param.name; });

struct MatmulCase {
  tsr_dtype dtype;
  int64_t tokens;
  bool per_slot;
};

// Names the case in test listings (the default prints the struct's bytes, padding too).
void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << kit::dtype_label(c.dtype) << " x " << c.tokens << (c.per_slot ? " per slot" : "");
}

class MoeMatmul : public VulkanParamTest<MatmulCase> {};

TEST_P(MoeMatmul, MatchesTheReference) {
  const MatmulCase& c = GetParam();
  constexpr int64_t kExperts = 5, kSlots = 2, kM = 19, kK = 256;
  const HostTensor w =
      HostTensor::from_f32(c.dtype, {kExperts, kM, kK}, random_values(static_cast<size_t>(kExperts * kM * kK), 42));
  const int64_t x_cols = c.per_slot ? kSlots * kK : kK;
  const HostTensor x = HostTensor::f32({c.tokens, x_cols}, random_values(static_cast<size_t>(c.tokens * x_cols), 43));
  const HostTensor route = HostTensor::f32({c.tokens, 2 * kSlots}, random_route(c.tokens, kSlots, kExperts, 44));
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, kSlots * kM});
  run_reference(cpu::moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, ref);
  const std::vector<float> got =
      run_on_vulkan(TSR_OP_MOE_MATMUL, c.dtype, nullptr, {&x, &w, &route},
                    HostTensor(TSR_DTYPE_F32, {c.tokens, kSlots * kM}), {4, odd_offset(c.dtype, 9), 36, 132});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, MoeMatmul,
    ::testing::Values(MatmulCase{TSR_DTYPE_F32, 1, false}, MatmulCase{TSR_DTYPE_F32, 13, true},
                      MatmulCase{TSR_DTYPE_F16, 7, false}, MatmulCase{TSR_DTYPE_BF16, 3, true},
                      MatmulCase{TSR_DTYPE_Q8_0, 1, false}, MatmulCase{TSR_DTYPE_Q4_0, 9, true},
                      MatmulCase{TSR_DTYPE_Q4_1, 2, false}, MatmulCase{TSR_DTYPE_Q5_K, 1, true},
                      MatmulCase{TSR_DTYPE_Q4_K, 11, false}, MatmulCase{TSR_DTYPE_Q6_K, 4, false},
                      MatmulCase{TSR_DTYPE_Q2_K, 3, false}, MatmulCase{TSR_DTYPE_IQ4_XS, 5, true}),
    [](const ::testing::TestParamInfo<MatmulCase>& info) {
      const MatmulCase& c = info.param;
      return std::string(kit::dtype_label(c.dtype)) + "_t" + std::to_string(c.tokens) + (c.per_slot ? "_wide" : "");
    });

class MoeErrors : public VulkanTest {};

TEST_F(MoeErrors, ARouteNamingNoExpertIsReported) {
  const HostTensor w = HostTensor::f32({3, 4, 8}, random_values(96, 45));
  const HostTensor x = HostTensor::f32({2, 8}, random_values(16, 46));
  const HostTensor route = HostTensor::f32({2, 2}, {1, 1, 7, 1});
  const GpuTensor gw(w, 4), gx(x, 8), groute(route, 12), gout(HostTensor(TSR_DTYPE_F32, {2, 4}), 16);
  EXPECT_THAT(error_of([&] { run_vulkan(TSR_OP_MOE_MATMUL, TSR_DTYPE_F32, nullptr, {&gx, &gw, &groute}, gout); }),
              ::testing::HasSubstr("moe_matmul: route slot 1 names expert 7, expected a whole number 0 .. 2"));
}

TEST(MoeCombineKernel, MatchesTheReference) {
  TESSERA_SKIP_WITHOUT_VULKAN();
  constexpr int64_t kTokens = 23, kSlots = 3, kCols = 37;
  const HostTensor y = HostTensor::f32({kTokens, kSlots * kCols}, random_values(kTokens * kSlots * kCols, 47));
  const HostTensor route = HostTensor::f32({kTokens, 2 * kSlots}, random_values(kTokens * 2 * kSlots, 48, 0, 1));
  HostTensor ref(TSR_DTYPE_F32, {kTokens, kCols});
  run_reference(cpu::moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, ref);
  const std::vector<float> got = run_on_vulkan(TSR_OP_MOE_COMBINE, TSR_DTYPE_F32, nullptr, {&y, &route},
                                               HostTensor(TSR_DTYPE_F32, {kTokens, kCols}), {4, 8, 12});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-6);
}

}  // namespace
}  // namespace tessera::vulkan::test
