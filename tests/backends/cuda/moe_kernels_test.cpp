// The CUDA mixture-of-experts kernels against the CPU reference: MOE_ROUTE's experts
// exactly and weights within 1e-5 (softmax and sigmoid, normalised or not, scaled),
// MOE_MATMUL for every weight family within 1e-4 of the largest output (both decode the
// weights exactly; only the summation order differs), MOE_COMBINE within 1e-6, and a
// route naming no expert refused with the kit's message.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/ops/moe.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

using cpu::test::random_route;
using cpu::test::random_values;
using cpu::test::relative_error;

struct RouteCase {
  const char* name;
  int64_t tokens, experts;
  tsr_moe_route_params p;
};

class CudaMoeRoute : public CudaParamTest<RouteCase> {};

TEST_P(CudaMoeRoute, ChoosesTheReferenceExpertsAndWeights) {
  const RouteCase& c = GetParam();
  const HostTensor logits =
      HostTensor::f32({c.tokens, c.experts}, random_values(static_cast<size_t>(c.tokens * c.experts), 41, -4, 4));
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}});
  run_reference(cpu::moe_route_ref, TSR_OP_MOE_ROUTE, &c.p, {&logits}, ref);
  const std::vector<float> want = ref.to_f32();
  const std::vector<float> got = run_on_backend(TSR_OP_MOE_ROUTE, TSR_DTYPE_F32, &c.p, {&logits},
                                                HostTensor(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}}), {4, 68});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const bool index = static_cast<int64_t>(i) % (2 * c.p.k) < c.p.k;
    if (index) {
      EXPECT_EQ(got[i], want[i]) << "entry " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << "entry " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CudaMoeRoute,
    ::testing::Values(RouteCase{"softmax_top2_normalised", 37, 8, {2, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"softmax_top8_of_60", 13, 60, {8, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"sigmoid_top3_scaled", 9, 16, {3, TSR_MOE_SIGMOID, 0, 2.5f}}),
    [](const auto& info) { return std::string(info.param.name); });

struct MatmulCase {
  tsr_dtype dtype;
  int64_t tokens;
  bool per_slot;
};

class CudaMoeMatmul : public CudaParamTest<MatmulCase> {};

TEST_P(CudaMoeMatmul, MatchesTheReference) {
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
      run_on_backend(TSR_OP_MOE_MATMUL, c.dtype, nullptr, {&x, &w, &route},
                     HostTensor(TSR_DTYPE_F32, {c.tokens, kSlots * kM}), {4, odd_offset(c.dtype, 9), 36, 132});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaMoeMatmul,
                         ::testing::Values(MatmulCase{TSR_DTYPE_F32, 13, true}, MatmulCase{TSR_DTYPE_F16, 7, false},
                                           MatmulCase{TSR_DTYPE_BF16, 3, true}, MatmulCase{TSR_DTYPE_Q8_0, 1, false},
                                           MatmulCase{TSR_DTYPE_Q4_0, 9, true}, MatmulCase{TSR_DTYPE_Q4_K, 11, false},
                                           MatmulCase{TSR_DTYPE_Q6_K, 4, false}, MatmulCase{TSR_DTYPE_IQ4_XS, 5, true}),
                         [](const auto& info) {
                           const MatmulCase& c = info.param;
                           return std::string(kit::dtype_label(c.dtype)) + "_t" + std::to_string(c.tokens) +
                                  (c.per_slot ? "_wide" : "");
                         });

TEST_F(CudaTest, MoeMatmulRefusesARouteNamingNoExpert) {
  const HostTensor w = HostTensor::f32({3, 4, 8}, random_values(96, 45));
  const HostTensor x = HostTensor::f32({2, 8}, random_values(16, 46));
  const HostTensor route = HostTensor::f32({2, 2}, {1, 1, 7, 1});
  const std::string message = error_of([&] {
    run_on_backend(TSR_OP_MOE_MATMUL, TSR_DTYPE_F32, nullptr, {&x, &w, &route}, HostTensor(TSR_DTYPE_F32, {2, 4}),
                   {4, 8, 12, 16});
  });
  EXPECT_NE(message.find("moe_matmul: route names expert 7"), std::string::npos) << message;
}

TEST_F(CudaTest, MoeCombineMatchesTheReference) {
  constexpr int64_t kTokens = 23, kSlots = 3, kCols = 37;
  const HostTensor y = HostTensor::f32({kTokens, kSlots * kCols}, random_values(kTokens * kSlots * kCols, 47));
  const HostTensor route = HostTensor::f32({kTokens, 2 * kSlots}, random_values(kTokens * 2 * kSlots, 48, 0, 1));
  HostTensor ref(TSR_DTYPE_F32, {kTokens, kCols});
  run_reference(cpu::moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, ref);
  const std::vector<float> got = run_on_backend(TSR_OP_MOE_COMBINE, TSR_DTYPE_F32, nullptr, {&y, &route},
                                                HostTensor(TSR_DTYPE_F32, {kTokens, kCols}), {4, 8, 12});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-6);
}

}  // namespace
}  // namespace tessera::cuda::test
