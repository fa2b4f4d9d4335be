// The tensor arithmetic kernels SUB, AFFINE and CLAMP (the DSL's a - b, -x, x + s, s - x
// and clamp(x, lo, hi)): the reference kernels at hand-computed points, on random inputs
// of odd shapes against the header's formulas evaluated here in double, and their
// error paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/ops/elementwise.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;

class Arithmetic : public ::testing::Test {
 protected:
  std::vector<float> apply(KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& in) {
    const tsr_tensor& x = in[0]->desc();
    HostTensor out(TSR_DTYPE_F32, {x.shape[0], x.shape[1]});
    EXPECT_EQ(run_kernel(device_, body, op, params, in, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  std::string fails(KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& in) {
    const tsr_tensor& x = in[0]->desc();
    HostTensor out(TSR_DTYPE_F32, {x.shape[0], x.shape[1]});
    EXPECT_EQ(run_kernel(device_, body, op, params, in, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

// ---- SUB --------------------------------------------------------------------------------

TEST_F(Arithmetic, SubOfTwoMatrices) {
  const auto a = HostTensor::f32({2, 2}, {5, 1, -2, 0.5f});
  const auto b = HostTensor::f32({2, 2}, {1, 3, -2, 2});
  EXPECT_THAT(apply(sub_ref, TSR_OP_SUB, nullptr, {&a, &b}), ElementsAre(4, -2, 0, -1.5f));
}

TEST_F(Arithmetic, SubBroadcastsARowOverTheRows) {
  const auto a = HostTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto row = HostTensor::f32({3}, {1, 0, -1});
  EXPECT_THAT(apply(sub_ref, TSR_OP_SUB, nullptr, {&a, &row}), ElementsAre(0, 2, 4, 3, 5, 7));
}

TEST_F(Arithmetic, SubMatchesTheFormulaOnRandomInputs) {
  const std::vector<float> av = random_values(7 * 37, 1, -9, 9), bv = random_values(37, 2, -9, 9);
  const auto a = HostTensor::f32({7, 37}, av);
  const auto b = HostTensor::f32({37}, bv);
  std::vector<float> want;
  for (size_t i = 0; i < av.size(); ++i) want.push_back(av[i] - bv[i % 37]);  // exact: one rounding either way
  EXPECT_EQ(apply(sub_ref, TSR_OP_SUB, nullptr, {&a, &b}), want);
}

TEST_F(Arithmetic, SubRejectsAnOperandOfAnotherShape) {
  const auto a = HostTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto b = HostTensor::f32({2}, {1, 2});
  EXPECT_THAT(fails(sub_ref, TSR_OP_SUB, nullptr, {&a, &b}), StrEq("sub: b has shape [2], expected [2, 3] or [3]"));
}

// ---- AFFINE -----------------------------------------------------------------------------

TEST_F(Arithmetic, AffineScalesThenShifts) {
  const tsr_affine_params p{-1.0f, 0.5f};  // 0.5 - x
  const auto x = HostTensor::f32({1, 4}, {1, -2, 0.5f, 0});
  EXPECT_THAT(apply(affine_ref, TSR_OP_AFFINE, &p, {&x}), ElementsAre(-0.5f, 2.5f, 0, 0.5f));
}

TEST_F(Arithmetic, AffineMatchesTheFormulaOnRandomInputs) {
  const tsr_affine_params p{0.37f, -1.25f};
  const std::vector<float> xv = random_values(13 * 29, 3, -50, 50);
  std::vector<float> want;
  for (float v : xv) want.push_back(static_cast<float>(double{v} * p.scale + p.bias));
  const auto x = HostTensor::f32({13, 29}, xv);
  EXPECT_LT(relative_error(apply(affine_ref, TSR_OP_AFFINE, &p, {&x}), want), 1e-7);
}

TEST_F(Arithmetic, AffineRejectsMissingParams) {
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  EXPECT_THAT(fails(affine_ref, TSR_OP_AFFINE, nullptr, {&x}), StrEq("affine: params are missing"));
}

// ---- CLAMP ------------------------------------------------------------------------------

TEST_F(Arithmetic, ClampKeepsValuesBetweenTheBounds) {
  const tsr_clamp_params p{-1.0f, 2.0f};
  const auto x = HostTensor::f32({1, 5}, {-3, -1, 0.5f, 2, 7});
  EXPECT_THAT(apply(clamp_ref, TSR_OP_CLAMP, &p, {&x}), ElementsAre(-1, -1, 0.5f, 2, 2));
}

TEST_F(Arithmetic, ClampWithAnInfiniteBoundClampsOneSide) {
  const tsr_clamp_params p{-std::numeric_limits<float>::infinity(), 0.0f};
  const auto x = HostTensor::f32({1, 3}, {-1e30f, 3, -0.25f});
  EXPECT_THAT(apply(clamp_ref, TSR_OP_CLAMP, &p, {&x}), ElementsAre(-1e30f, 0, -0.25f));
}

TEST_F(Arithmetic, ClampLeavesNaNAsNaN) {
  const tsr_clamp_params p{-1.0f, 1.0f};
  const auto x = HostTensor::f32({1, 1}, {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(apply(clamp_ref, TSR_OP_CLAMP, &p, {&x})[0]));
}

TEST_F(Arithmetic, ClampMatchesTheFormulaOnRandomInputs) {
  const tsr_clamp_params p{-2.5f, 1.5f};
  const std::vector<float> xv = random_values(5 * 41, 4, -6, 6);
  std::vector<float> want;
  for (float v : xv) want.push_back(std::min(std::max(v, p.lo), p.hi));
  const auto x = HostTensor::f32({5, 41}, xv);
  EXPECT_EQ(apply(clamp_ref, TSR_OP_CLAMP, &p, {&x}), want);
}

TEST_F(Arithmetic, ClampRejectsBoundsTheWrongWayRound) {
  const tsr_clamp_params p{2.0f, 1.0f};
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  EXPECT_THAT(fails(clamp_ref, TSR_OP_CLAMP, &p, {&x}), StrEq("clamp: needs lo <= hi, got lo 2.000000 and hi 1.000000"));
}

TEST_F(Arithmetic, ClampRejectsANaNBound) {
  const tsr_clamp_params p{0.0f, std::numeric_limits<float>::quiet_NaN()};
  const auto x = HostTensor::f32({1, 2}, {1, 2});
  EXPECT_THAT(fails(clamp_ref, TSR_OP_CLAMP, &p, {&x}), StrEq("clamp: needs lo <= hi, got lo 0.000000 and hi nan"));
}

}  // namespace
}  // namespace tessera::cpu::test
