// The CUDA mixture-of-experts kernels against the CPU reference: MOE_ROUTE's experts
// exactly and weights within 1e-5 (softmax and sigmoid, normalised or not, scaled),
// MOE_MATMUL for every weight family within 1e-4 of the largest output (both decode the
// weights exactly; only the summation order differs) and MOE_COMBINE within 1e-6 (a
// route naming no expert: index_errors_test.cpp).
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

TEST_F(CudaTest, MoeCombineMatchesTheReference) { gpu_test::expect_moe_combine_like_reference(); }

}  // namespace
}  // namespace tessera::cuda::test
