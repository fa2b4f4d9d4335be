// The Vulkan MATMUL kernels (the decode path for up to 8 rows of x, the tiled path
// beyond) against the CPU reference for every weight dtype, on odd shapes that do not
// divide the tiles, and on a weight larger than lavapipe's 128 MiB storage-buffer range.
// The decode path's reduction runs with subgroup arithmetic where the device has it;
// ctest runs these tests again with TESSERA_VULKAN_SUBGROUPS=0 for the plain shader,
// and with TESSERA_VULKAN_INT8_DOT=1 for the int8-dot path of q8_0 weights (x quantised
// per 32-block), whose cases compare against x quantised the same way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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
// The int8-dot path against the exact f32 reference: x rounded to 8 bits per 32-block
// (error up to d/2 = max|x|/254 per value). Measured on these cases on lavapipe: 2.2e-3
// to 8.5e-3 (largest for small K, where fewer rounding errors average out).
constexpr double kInt8DotTolerance = 2e-2;

std::string description() { return session().plugin->device_info(0).description; }

// Whether q8_0 decode MATMULs take the int8-dot path, as the description states it.
bool int8_dot_used() { return description().find("int8 dot yes (") != std::string::npos &&
                              description().find(", used)") != std::string::npos; }

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

// x as the int8-dot path sees it: per block of 32, d = max|x| / 127 and q = x / d
// rounded half away from zero (quantize_q8.comp), back to f32 as q * d.
std::vector<float> quantized_like_int8_path(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (size_t first = 0; first < x.size(); first += 32) {
    float amax = 0.0f;
    for (size_t j = first; j < first + 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    for (size_t j = first; j < first + 32; ++j) {
      out[j] = std::clamp(std::round(x[j] * inv), -127.0f, 127.0f) * d;
    }
  }
  return out;
}

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

bool takes_int8_dot_path(const MatmulCase& c) { return c.dtype == TSR_DTYPE_Q8_0 && c.n <= 8 && int8_dot_used(); }

struct MatmulErrors {
  double exact;      // against x as given
  double quantized;  // against x quantised as the int8-dot path does (= exact elsewhere)
};

MatmulErrors matmul_errors(const MatmulCase& c, const std::vector<float>& x_values, uint64_t weight_slot) {
  const HostTensor x = HostTensor::f32({c.n, c.k}, x_values);
  const HostTensor w = HostTensor::from_f32(c.dtype, {c.m, c.k}, random_values(static_cast<size_t>(c.m * c.k), 52));
  HostTensor ref(TSR_DTYPE_F32, {c.n, c.m});
  run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, ref);
  const auto got = run_on_vulkan(TSR_OP_MATMUL, c.dtype, nullptr, {&x, &w}, HostTensor(TSR_DTYPE_F32, {c.n, c.m}),
                                 {36, odd_offset(c.dtype, weight_slot), 1028});
  MatmulErrors e{relative_error(got, ref.to_f32()), 0.0};
  e.quantized = e.exact;
  if (takes_int8_dot_path(c)) {
    const HostTensor xq = HostTensor::f32({c.n, c.k}, quantized_like_int8_path(x_values));
    HostTensor ref_q(TSR_DTYPE_F32, {c.n, c.m});
    run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&xq, &w}, ref_q);
    e.quantized = relative_error(got, ref_q.to_f32());
  }
  return e;
}

MatmulErrors matmul_errors(const MatmulCase& c, uint64_t weight_slot) {
  return matmul_errors(c, random_values(static_cast<size_t>(c.n * c.k), 51), weight_slot);
}

double matmul_error(const MatmulCase& c, uint64_t weight_slot) { return matmul_errors(c, weight_slot).exact; }

class Matmul : public VulkanParamTest<MatmulCase> {};

// The int8-dot path gets the same products as the reference on the quantised x (exact
// int8 sums, then d_w * d_x in f32), so only the summation order differs: kTolerance.
TEST_P(Matmul, MatchesTheReference) {
  const MatmulErrors e = matmul_errors(GetParam(), 24);
  EXPECT_LT(e.quantized, kTolerance);
  EXPECT_LT(e.exact, takes_int8_dot_path(GetParam()) ? kInt8DotTolerance : kTolerance);
}

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
        // q8_0 decode path (the int8-dot path where used): one block, n = 1..8, M odd
        MatmulCase{TSR_DTYPE_Q8_0, 1, 32, 1}, MatmulCase{TSR_DTYPE_Q8_0, 2, 32, 9},
        MatmulCase{TSR_DTYPE_Q8_0, 3, 32, 7}, MatmulCase{TSR_DTYPE_Q8_0, 4, 4128, 3},
        MatmulCase{TSR_DTYPE_Q8_0, 5, 4128, 5}, MatmulCase{TSR_DTYPE_Q8_0, 6, 96, 17},
        MatmulCase{TSR_DTYPE_Q8_0, 8, 4128, 33},
        // tiled path (n > 8): tiles of 64 x 64 and K slices of 16, partly filled
        MatmulCase{TSR_DTYPE_F32, 9, 64, 65}, MatmulCase{TSR_DTYPE_F32, 70, 77, 130}, MatmulCase{TSR_DTYPE_F16, 20, 77, 19},
        MatmulCase{TSR_DTYPE_BF16, 65, 33, 64}, MatmulCase{TSR_DTYPE_Q8_0, 70, 96, 130},
        MatmulCase{TSR_DTYPE_Q8_0, 129, 160, 7}),
    [](const auto& info) {
      const MatmulCase& c = info.param;
      return dtype_text(c.dtype) + "_n" + std::to_string(c.n) + "_k" + std::to_string(c.k) + "_m" +
             std::to_string(c.m);
    });

class MatmulInt8Dot : public VulkanTest {};

// Which path the q8_0 decode cases above take: ctest's vulkan_matmul_int8_dot entry sets
// TESSERA_VULKAN_INT8_DOT=1, which must turn the path on wherever the device can run it.
TEST_F(MatmulInt8Dot, DescriptionStatesWhetherThePathIsUsed) {
  const std::string text = description();
  if (text.find("int8 dot no") != std::string::npos) GTEST_SKIP() << "no shaderIntegerDotProduct: " << text;
  const bool can_run = text.find("(arithmetic yes)") != std::string::npos &&
                       text.find("subgroup arithmetic off") == std::string::npos;
  if (env_is("TESSERA_VULKAN_INT8_DOT", "0") || !can_run) {
    EXPECT_THAT(text, ::testing::HasSubstr(", not used)"));
  } else if (env_is("TESSERA_VULKAN_INT8_DOT", "1")) {
    EXPECT_THAT(text, ::testing::HasSubstr(", used)"));
  } else {
    EXPECT_THAT(text, ::testing::ContainsRegex("\\((accelerated, used|not accelerated, not used)\\)"));
  }
}

// x with a block of zeros (scale 0: q must be 0, not NaN), an all-negative block, and a
// block with one value far above the rest (most of its values round to 0).
TEST_F(MatmulInt8Dot, ZeroAndNegativeBlocks) {
  const MatmulCase c{TSR_DTYPE_Q8_0, 2, 96, 5};
  std::vector<float> x = random_values(static_cast<size_t>(c.n * c.k), 53);
  std::fill(x.begin() + 32, x.begin() + 64, 0.0f);                   // row 0, block 1
  for (size_t j = 96; j < 128; ++j) x[j] = -std::fabs(x[j]) - 0.25f; // row 1, block 0
  x[160] = 8.0f;                                                         // row 1, block 2
  const MatmulErrors e = matmul_errors(c, x, 24);  // a NaN output makes both infinite
  EXPECT_LT(e.quantized, kTolerance);
  EXPECT_LT(e.exact, takes_int8_dot_path(c) ? kInt8DotTolerance : kTolerance);
}

class MatmulLarge : public VulkanTest {};

// 33000 x 1024 f32 = 135 MB: more than one storage-buffer binding could cover on
// lavapipe; the kernels reach it by device address.
TEST_F(MatmulLarge, WeightLargerThanTheStorageBufferRange) {
  EXPECT_LT(matmul_error({TSR_DTYPE_F32, 1, 1024, 33000}, 1024), kTolerance);
}

}  // namespace
}  // namespace tessera::vulkan::test
