// SLICE reference kernel (ABI v2): column ranges and per-head parts of a fused
// projection by hand, random 3-d inputs against the formula written out here (exact:
// a copy), and the parameter checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/ops/slice.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;

class SliceKernel : public ::testing::Test {
 protected:
  tsr_status slice(const tsr_slice_params& p, const HostTensor& x, HostTensor& out) {
    return run_kernel(device_, slice_ref, TSR_OP_SLICE, &p, {&x}, out);
  }
  std::string fails(const tsr_slice_params& p, int64_t x_cols, int64_t out_cols) {
    HostTensor x(TSR_DTYPE_F32, {2, x_cols}), out(TSR_DTYPE_F32, {2, out_cols});
    EXPECT_EQ(slice(p, x, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

// x [2, 10] holding 0..19.
HostTensor counting() {
  std::vector<float> v(20);
  for (int i = 0; i < 20; ++i) v[i] = static_cast<float>(i);
  return HostTensor::f32({2, 10}, v);
}

TEST_F(SliceKernel, OneGroupIsAColumnRange) {
  HostTensor out(TSR_DTYPE_F32, {2, 3});
  ASSERT_EQ(slice(slice_params(6, 3, 0, 1), counting(), out), TSR_OK) << device_.last_error();
  EXPECT_THAT(out.to_f32(), ElementsAre(6, 7, 8, 16, 17, 18));
}

TEST_F(SliceKernel, GroupsTakeTheSamePartOfEveryHead) {
  // Three heads of 3 columns from column 1: columns 1-2, 4-5, 7-8 of each row.
  HostTensor out(TSR_DTYPE_F32, {2, 6});
  ASSERT_EQ(slice(slice_params(1, 2, 3, 3), counting(), out), TSR_OK) << device_.last_error();
  EXPECT_THAT(out.to_f32(), ElementsAre(1, 2, 4, 5, 7, 8, 11, 12, 14, 15, 17, 18));
}

TEST_F(SliceKernel, TheLastColumnCanBeRead) {
  HostTensor out(TSR_DTYPE_F32, {2, 2});
  ASSERT_EQ(slice(slice_params(5, 1, 4, 2), counting(), out), TSR_OK) << device_.last_error();
  EXPECT_THAT(out.to_f32(), ElementsAre(5, 9, 15, 19));
}

TEST_F(SliceKernel, KeysOfAFusedQkvProjectionMatchTheFormula) {
  // x [2, 3, 4 heads * (8 q + 4 k + 4 v)]; the k part: start 8, count 4, stride 16.
  const int64_t heads = 4, head_width = 16, rows = 6;
  const std::vector<float> values = random_values(static_cast<size_t>(rows * heads * head_width), 91);
  const auto x = HostTensor::f32({2, 3, heads * head_width}, values);
  HostTensor out(TSR_DTYPE_F32, {rows, heads * 4});
  ASSERT_EQ(slice(slice_params(8, 4, head_width, heads), x, out), TSR_OK) << device_.last_error();
  std::vector<float> expected;
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t g = 0; g < heads; ++g) {
      for (int64_t j = 0; j < 4; ++j) expected.push_back(values[n * heads * head_width + 8 + g * head_width + j]);
    }
  }
  EXPECT_EQ(out.to_f32(), expected);
}

TEST_F(SliceKernel, RejectsARangePastTheRow) {
  EXPECT_THAT(fails(slice_params(1, 2, 4, 3), 10, 6),
              StrEq("slice: 3 groups of 2 columns from column 1 with stride 4 read past the 10 columns of x"));
}

TEST_F(SliceKernel, RejectsAStrideThatWouldOverflow) {
  EXPECT_THAT(fails(slice_params(0, 1, int64_t{1} << 62, 4), 10, 4),
              StrEq("slice: 4 groups of 1 columns from column 0 with stride 4611686018427387904 read past the 10 "
                    "columns of x"));
}

TEST_F(SliceKernel, RejectsNegativeParams) {
  EXPECT_THAT(fails(slice_params(-1, 2, 0, 1), 10, 2),
              StrEq("slice: needs start, count, stride >= 0 and groups >= 1, got start -1, count 2, stride 0, "
                    "groups 1"));
  EXPECT_THAT(fails(slice_params(0, 2, 0, 0), 10, 2),
              StrEq("slice: needs start, count, stride >= 0 and groups >= 1, got start 0, count 2, stride 0, "
                    "groups 0"));
}

TEST_F(SliceKernel, RejectsAnOutputOfTheWrongWidth) {
  EXPECT_THAT(fails(slice_params(1, 2, 3, 3), 10, 5), StrEq("slice: out has shape [2, 5], expected [2, 6]"));
}

TEST_F(SliceKernel, RejectsMissingParams) {
  HostTensor x(TSR_DTYPE_F32, {2, 10}), out(TSR_DTYPE_F32, {2, 2});
  EXPECT_EQ(run_kernel(device_, slice_ref, TSR_OP_SLICE, nullptr, {&x}, out), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device_.last_error(), StrEq("slice: params are missing"));
}

}  // namespace
}  // namespace tessera::cpu::test
