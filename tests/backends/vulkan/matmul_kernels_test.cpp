// The Vulkan MATMUL kernels (the decode path for up to 8 rows of x, the tiled path
// beyond) against the CPU reference for every weight dtype, on odd shapes that do not
// divide the tiles, and on a weight larger than lavapipe's 128 MiB storage-buffer range.
// The decode path's reduction runs with subgroup arithmetic where the device has it;
// ctest runs these tests again with TESSERA_VULKAN_SUBGROUPS=0 for the plain shader.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cpu/ops/matmul.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_values;
using cpu::test::relative_error;

// Float sums in another order than the double-precision reference.
constexpr double kTolerance = 1e-5;

struct MatmulCase {
  tsr_dtype dtype;
  int64_t n, k, m;
};

std::string dtype_text(tsr_dtype t) {
  switch (t) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_BF16: return "bf16";
    default: return "q8_0";
  }
}

double matmul_error(const MatmulCase& c, uint64_t weight_slot) {
  const HostTensor x = HostTensor::f32({c.n, c.k}, random_values(static_cast<size_t>(c.n * c.k), 51));
  const HostTensor w = HostTensor::from_f32(c.dtype, {c.m, c.k}, random_values(static_cast<size_t>(c.m * c.k), 52));
  HostTensor ref(TSR_DTYPE_F32, {c.n, c.m});
  run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, ref);
  const auto got = run_on_vulkan(TSR_OP_MATMUL, c.dtype, nullptr, {&x, &w}, HostTensor(TSR_DTYPE_F32, {c.n, c.m}),
                                 {36, odd_offset(c.dtype, weight_slot), 1028});
  return relative_error(got, ref.to_f32());
}

class Matmul : public VulkanParamTest<MatmulCase> {};

TEST_P(Matmul, MatchesTheReference) { EXPECT_LT(matmul_error(GetParam(), 24), kTolerance); }

INSTANTIATE_TEST_SUITE_P(
    Shapes, Matmul,
    ::testing::Values(
        // decode path (n <= 8)
        MatmulCase{TSR_DTYPE_F32, 1, 64, 3}, MatmulCase{TSR_DTYPE_F32, 5, 77, 19}, MatmulCase{TSR_DTYPE_F16, 8, 160, 33},
        MatmulCase{TSR_DTYPE_F16, 3, 77, 130}, MatmulCase{TSR_DTYPE_BF16, 2, 45, 17}, MatmulCase{TSR_DTYPE_Q8_0, 1, 64, 3},
        MatmulCase{TSR_DTYPE_Q8_0, 7, 2048, 5},
        // K far beyond the workgroup and not a multiple of it (4128 = 129 q8_0 blocks)
        MatmulCase{TSR_DTYPE_F32, 3, 4099, 5}, MatmulCase{TSR_DTYPE_BF16, 8, 4099, 3},
        MatmulCase{TSR_DTYPE_Q8_0, 2, 4128, 7},
        // tiled path (n > 8): tiles of 64 x 64 and K slices of 16, partly filled
        MatmulCase{TSR_DTYPE_F32, 9, 64, 65}, MatmulCase{TSR_DTYPE_F32, 70, 77, 130}, MatmulCase{TSR_DTYPE_F16, 20, 77, 19},
        MatmulCase{TSR_DTYPE_BF16, 65, 33, 64}, MatmulCase{TSR_DTYPE_Q8_0, 70, 96, 130},
        MatmulCase{TSR_DTYPE_Q8_0, 129, 160, 7}),
    [](const auto& info) {
      const MatmulCase& c = info.param;
      return dtype_text(c.dtype) + "_n" + std::to_string(c.n) + "_k" + std::to_string(c.k) + "_m" +
             std::to_string(c.m);
    });

class MatmulLarge : public VulkanTest {};

// 33000 x 1024 f32 = 135 MB: more than one storage-buffer binding could cover on
// lavapipe; the kernels reach it by device address.
TEST_F(MatmulLarge, WeightLargerThanTheStorageBufferRange) {
  EXPECT_LT(matmul_error({TSR_DTYPE_F32, 1, 1024, 33000}, 1024), kTolerance);
}

}  // namespace
}  // namespace tessera::vulkan::test
