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
#include "backends/gpu_index_errors.h"
#include "backends/gpu_kernel_checks.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_route;
using cpu::test::random_values;
using cpu::test::relative_error;

using gpu_test::MoeMatmulCase;
using gpu_test::MoeRouteCase;

class MoeRoute : public VulkanParamTest<MoeRouteCase> {};

TEST_P(MoeRoute, ChoosesTheReferenceExpertsAndWeights) { gpu_test::expect_moe_route_like_reference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, MoeRoute, ::testing::ValuesIn(gpu_test::moe_route_cases()),
                         [](const auto& info) { return info.param.name; });

class MoeMatmul : public VulkanParamTest<MoeMatmulCase> {};

TEST_P(MoeMatmul, MatchesTheReference) { gpu_test::expect_moe_matmul_like_reference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Dtypes, MoeMatmul, ::testing::ValuesIn(gpu_test::moe_matmul_cases()),
                         [](const auto& info) { return gpu_test::moe_matmul_case_name(info.param); });

class MoeErrors : public VulkanTest {};

TEST_F(MoeErrors, ARouteNamingNoExpertIsReported) { gpu_test::expect_moe_route_reported(); }

TEST(MoeCombineKernel, MatchesTheReference) {
  TESSERA_SKIP_WITHOUT_VULKAN();
  gpu_test::expect_moe_combine_like_reference();
}

}  // namespace
}  // namespace tessera::vulkan::test
