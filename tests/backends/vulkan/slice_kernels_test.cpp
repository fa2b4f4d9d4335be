// The Vulkan SLICE kernel against the CPU reference: exact (a copy), on random inputs
// of odd widths at offsets that are not multiples of 256, for column ranges and for
// per-head parts of fused projections; and its parameter check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/slice.h"
#include "core/util/error.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_values;
using cpu::test::slice_params;

struct SliceCase {
  std::string name;
  int64_t rows, cols;
  tsr_slice_params p;
};

class Slice : public VulkanParamTest<SliceCase> {};

TEST_P(Slice, MatchesTheReferenceExactly) {
  const SliceCase c = GetParam();
  const HostTensor x = HostTensor::f32({c.rows, c.cols}, random_values(static_cast<size_t>(c.rows * c.cols), 101));
  const int64_t out_cols = c.p.groups * c.p.count;
  HostTensor ref(TSR_DTYPE_F32, {c.rows, out_cols});
  run_reference(cpu::slice_ref, TSR_OP_SLICE, &c.p, {&x}, ref);
  const auto got =
      run_on_vulkan(TSR_OP_SLICE, TSR_DTYPE_F32, &c.p, {&x}, HostTensor(TSR_DTYPE_F32, {c.rows, out_cols}), {36, 132});
  EXPECT_EQ(got, ref.to_f32());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Slice,
    ::testing::Values(SliceCase{"one_column", 1, 1, slice_params(0, 1, 0, 1)},
                      SliceCase{"column_range", 7, 131, slice_params(40, 77, 0, 1)},
                      SliceCase{"last_columns", 3, 50, slice_params(45, 5, 999, 1)},
                      // q, k and v parts of 5 heads of (12 + 6 + 6) fused columns
                      SliceCase{"fused_q", 9, 120, slice_params(0, 12, 24, 5)},
                      SliceCase{"fused_k", 9, 120, slice_params(12, 6, 24, 5)},
                      SliceCase{"fused_v", 9, 120, slice_params(18, 6, 24, 5)},
                      SliceCase{"many_rows_odd_groups", 300, 77, slice_params(3, 7, 11, 7)},
                      SliceCase{"overlapping_groups", 4, 20, slice_params(2, 5, 3, 4)}),
    [](const auto& info) { return info.param.name; });

class SliceErrors : public VulkanTest {};

TEST_F(SliceErrors, ARangePastTheRowIsRefusedWithTheCpuMessage) {
  const HostTensor x(TSR_DTYPE_F32, {2, 10});
  const GpuTensor gx(x, 36), gout(HostTensor(TSR_DTYPE_F32, {2, 6}), 132);
  const tsr_slice_params p = slice_params(1, 2, 4, 3);
  try {
    run_vulkan(TSR_OP_SLICE, TSR_DTYPE_F32, &p, {&gx}, gout);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("slice: 3 groups of 2 columns from column 1 with stride 4 read past the 10 "
                                     "columns of x"));
  }
}

}  // namespace
}  // namespace tessera::vulkan::test
