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

#include "backends/gpu_kernel_checks.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

using cpu::test::random_values;

using gpu_test::MoeMatmulCase;
using gpu_test::MoeRouteCase;

class CudaMoeRoute : public CudaParamTest<MoeRouteCase> {};

TEST_P(CudaMoeRoute, ChoosesTheReferenceExpertsAndWeights) { gpu_test::expect_moe_route_like_reference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, CudaMoeRoute, ::testing::ValuesIn(gpu_test::moe_route_cases()),
                         [](const auto& info) { return info.param.name; });

class CudaMoeMatmul : public CudaParamTest<MoeMatmulCase> {};

TEST_P(CudaMoeMatmul, MatchesTheReference) { gpu_test::expect_moe_matmul_like_reference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaMoeMatmul, ::testing::ValuesIn(gpu_test::moe_matmul_cases()),
                         [](const auto& info) { return gpu_test::moe_matmul_case_name(info.param); });

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

TEST_F(CudaTest, MoeCombineMatchesTheReference) { gpu_test::expect_moe_combine_like_reference(); }

}  // namespace
}  // namespace tessera::cuda::test
