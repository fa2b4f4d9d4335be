// The CUDA MOE_ROUTE arithmetic (backends/cuda/ops/moe_math.h), compiled for the host,
// against the CPU reference: the chosen experts exactly (ties to the lower index, a NaN
// logit last) and their weights within 1e-6 (f32 softmax against the reference's double
// sum), for softmax and sigmoid gating, normalised or not, scaled.
#include "backends/cuda/ops/moe_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/host_tensor.h"
#include "backends/cpu/ops/moe.h"

namespace tessera::cuda {
namespace {

using cpu::test::HostTensor;
using cpu::test::random_values;

struct RouteCase {
  const char* name;
  int64_t tokens, experts;
  tsr_moe_route_params p;
};

void expect_route_like_reference(const RouteCase& c, const std::vector<float>& logits) {
  static cpu::CpuDevice device(1);
  const HostTensor in = HostTensor::f32({c.tokens, c.experts}, logits);
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}});
  ASSERT_EQ(cpu::test::run_kernel(device, cpu::moe_route_ref, TSR_OP_MOE_ROUTE, &c.p, {&in}, ref), TSR_OK)
      << device.last_error();
  const std::vector<float> want = ref.to_f32();
  std::vector<float> got(want.size());
  for (int64_t t = 0; t < c.tokens; ++t) {
    moe_route_row(logits.data() + t * c.experts, c.experts, c.p, got.data() + t * 2 * c.p.k);
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (static_cast<int64_t>(i) % (2 * c.p.k) < c.p.k) {
      EXPECT_EQ(got[i], want[i]) << "entry " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0f, std::fabs(want[i]))) << "entry " << i;
    }
  }
}

class MoeRouteMath : public ::testing::TestWithParam<RouteCase> {};

TEST_P(MoeRouteMath, ChoosesTheReferenceExpertsAndWeights) {
  const RouteCase& c = GetParam();
  expect_route_like_reference(c, random_values(static_cast<size_t>(c.tokens * c.experts), 41, -4, 4));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MoeRouteMath,
    ::testing::Values(RouteCase{"softmax_top2_normalised", 37, 8, {2, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"softmax_top1", 5, 4, {1, TSR_MOE_SOFTMAX, 0, 1.0f}},
                      RouteCase{"softmax_top8_of_60", 13, 60, {8, TSR_MOE_SOFTMAX, 1, 1.0f}},
                      RouteCase{"sigmoid_top3_scaled", 9, 16, {3, TSR_MOE_SIGMOID, 0, 2.5f}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(MoeRouteMath, TiesGoToTheLowerIndexAndANaNRanksLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const RouteCase c{"ties", 1, 5, {3, TSR_MOE_SIGMOID, 0, 1.0f}};
  std::vector<float> route(6);
  moe_route_row(std::vector<float>{nan, 2.0f, 1.0f, 2.0f, 1.0f}.data(), c.experts, c.p, route.data());
  EXPECT_EQ(route[0], 1.0f);
  EXPECT_EQ(route[1], 3.0f);
  EXPECT_EQ(route[2], 2.0f);
}

}  // namespace
}  // namespace tessera::cuda
