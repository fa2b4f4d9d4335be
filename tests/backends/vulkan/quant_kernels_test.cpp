// GET_ROWS and MATMUL on the block formats q4_0 ... iq4_xs (shaders/dequant.glsl),
// against the CPU reference kernels. One table drives every format: weights are
// kit::quantize_row of random floats, with every 4th block (block b, b % 4 == 1)
// replaced by raw random bytes whose f16 scales are set finite, so every bit pattern of
// the quant and sub-scale fields is decoded; odd M, K a multiple of the block only, and
// tensors at offsets that are not multiples of 4 (blocks are 2-byte aligned).
//   GET_ROWS: exact (the shader forms each value as the reference does, unfused).
//   MATMUL: the decode path (n <= 8: matmul_vec, _subgroup; ctest runs it again with
//   TESSERA_VULKAN_SUBGROUPS=0 for the plain shader) and the tiled prefill path (n > 8),
//   kTolerance relative to the largest reference value, as for q8_0 (float sums in
//   another order than the double reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/half.h>

#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/matmul.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_ids;
using cpu::test::random_values;
using cpu::test::relative_error;

constexpr double kTolerance = 1e-5;  // as matmul_kernels_test's for q8_0

// A block format and the byte offsets of its f16 scale fields within a block: `d`
// multiplies the quants (times a sub-block scale in the K formats); `second` is the
// min's scale (dmin of Q2_K, Q4_K, Q5_K, the m of Q4_1 / Q5_1), or -1 when there is none.
struct Format {
  tsr_dtype dtype;
  int d;
  int second;
};

constexpr Format kFormats[] = {
    {TSR_DTYPE_Q4_0, 0, -1},   {TSR_DTYPE_Q4_1, 0, 2},   {TSR_DTYPE_Q5_0, 0, -1},   {TSR_DTYPE_Q5_1, 0, 2},
    {TSR_DTYPE_Q2_K, 80, 82},  {TSR_DTYPE_Q3_K, 108, -1}, {TSR_DTYPE_Q4_K, 0, 2},    {TSR_DTYPE_Q5_K, 0, 2},
    {TSR_DTYPE_Q6_K, 208, -1}, {TSR_DTYPE_IQ4_NL, 0, -1}, {TSR_DTYPE_IQ4_XS, 0, -1},
};

std::string name_of(tsr_dtype t) { return std::string(kit::dtype_traits(t).name); }
int64_t block_elems(tsr_dtype t) { return kit::dtype_traits(t).block_elems; }

void put_half(std::byte* block, int offset, float value) {
  const uint16_t h = kit::f32_to_f16(value);
  std::memcpy(block + offset, &h, sizeof h);
}

// The largest |value| of the block as it stands.
float block_amax(tsr_dtype t, const std::byte* block) {
  std::vector<float> v(static_cast<size_t>(block_elems(t)));
  kit::dequantize_block(t, block, v.data());
  float amax = 0.0f;
  for (float x : v) amax = std::max(amax, std::fabs(x));
  return amax;
}

// Raw random bytes in one block, then its f16 scales chosen so that each of the two
// terms (d's and the min's) reaches between 0.25 and 1 in magnitude, with either sign:
// values of the size of the quantised blocks', so neither kind drowns the other.
void randomize_block(const Format& f, std::byte* block, std::mt19937& rng) {
  const int64_t bytes = kit::dtype_traits(f.dtype).block_bytes;
  std::uniform_int_distribution<int> byte(0, 255);
  for (int64_t i = 0; i < bytes; ++i) block[i] = static_cast<std::byte>(byte(rng));
  std::uniform_real_distribution<float> size(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  auto scaled = [&](float amax) {
    const float s = size(rng) / (amax > 0.0f ? amax : 1.0f);
    return negative(rng) ? -s : s;
  };
  // The d term alone (the min's scale 0), then the min term alone.
  if (f.second >= 0) put_half(block, f.second, 0.0f);
  put_half(block, f.d, 1.0f);
  const float d = scaled(block_amax(f.dtype, block));
  if (f.second >= 0) {
    put_half(block, f.d, 0.0f);
    put_half(block, f.second, 1.0f);
    const float second = scaled(block_amax(f.dtype, block));
    put_half(block, f.second, second);
  }
  put_half(block, f.d, d);
}

// [rows, cols] of format f: random values quantised, every 4th block raw bytes.
HostTensor quant_weights(const Format& f, int64_t rows, int64_t cols, uint32_t seed) {
  HostTensor t = HostTensor::from_f32(f.dtype, {rows, cols}, random_values(static_cast<size_t>(rows * cols), seed));
  std::mt19937 rng(seed + 1000);
  const int64_t blocks = rows * cols / block_elems(f.dtype);
  const int64_t bytes = kit::dtype_traits(f.dtype).block_bytes;
  for (int64_t b = 1; b < blocks; b += 4) randomize_block(f, t.bytes() + b * bytes, rng);
  return t;
}

// K as a multiple of the block: 32-blocks 32, 96, 4128; 256-blocks 256, 768, 4352.
int64_t k_of(tsr_dtype t, int size) {
  const int64_t be = block_elems(t);
  return size == 0 ? be : size == 1 ? 3 * be : (be == 32 ? 4128 : 4352);
}
const char* k_text(int size) { return size == 0 ? "k1block" : size == 1 ? "k3blocks" : "klarge"; }

std::vector<Format> all_formats() { return {std::begin(kFormats), std::end(kFormats)}; }

// ---- GET_ROWS -----------------------------------------------------------------------

struct GetRowsShape {
  int64_t rows;
  int k_size;  // see k_of
  int64_t n;
};
constexpr GetRowsShape kGetRowsShapes[] = {{1, 0, 3}, {7, 1, 5}, {33, 2, 9}, {130, 0, 131}};

struct GetRowsCase {
  Format format;
  GetRowsShape shape;
};

class QuantGetRows : public VulkanParamTest<GetRowsCase> {};

TEST_P(QuantGetRows, MatchesTheReferenceExactly) {
  const auto [f, s] = GetParam();
  const int64_t cols = k_of(f.dtype, s.k_size);
  const HostTensor table = quant_weights(f, s.rows, cols, 61);
  const HostTensor idx = HostTensor::i32({s.n}, random_ids(static_cast<size_t>(s.n), static_cast<int32_t>(s.rows), 62));
  HostTensor ref(TSR_DTYPE_F32, {s.n, cols});
  run_reference(cpu::get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, ref);
  const std::vector<float> got =
      run_on_vulkan(TSR_OP_GET_ROWS, f.dtype, nullptr, {&table, &idx}, HostTensor(TSR_DTYPE_F32, {s.n, cols}),
                    {odd_offset(f.dtype, 8), 132, 1028});
  const std::vector<float> want = ref.to_f32();
  ASSERT_EQ(got.size(), want.size());
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && mismatches++ == 0) first = i;
  }
  EXPECT_EQ(mismatches, 0u) << "first at " << first << ": " << got[first] << " vs " << want[first];
}

std::vector<GetRowsCase> get_rows_cases() {
  std::vector<GetRowsCase> cases;
  for (const Format& f : kFormats) {
    for (const GetRowsShape& s : kGetRowsShapes) cases.push_back({f, s});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Formats, QuantGetRows, ::testing::ValuesIn(get_rows_cases()), [](const auto& info) {
  const GetRowsCase& c = info.param;
  return name_of(c.format.dtype) + "_rows" + std::to_string(c.shape.rows) + "_" + k_text(c.shape.k_size) + "_n" +
         std::to_string(c.shape.n);
});

// ---- MATMUL -------------------------------------------------------------------------

struct MatmulShape {
  int64_t n;
  int k_size;  // see k_of
  int64_t m;
};
// Decode (n <= 8, matmul_vec) then prefill (n > 8, matmul_tiled: 64 x 64 tiles).
constexpr MatmulShape kMatmulShapes[] = {
    {1, 0, 1}, {2, 1, 7}, {4, 2, 33}, {1, 2, 130}, {5, 1, 130}, {8, 1, 33},  // decode
    {9, 0, 130}, {37, 1, 7}, {37, 2, 33}, {37, 0, 1},                         // prefill
};

struct MatmulCase {
  Format format;
  MatmulShape shape;
};

class QuantMatmul : public VulkanParamTest<MatmulCase> {};

TEST_P(QuantMatmul, MatchesTheReference) {
  const auto [f, s] = GetParam();
  const int64_t k = k_of(f.dtype, s.k_size);
  const HostTensor x = HostTensor::f32({s.n, k}, random_values(static_cast<size_t>(s.n * k), 71));
  const HostTensor w = quant_weights(f, s.m, k, 72);
  HostTensor ref(TSR_DTYPE_F32, {s.n, s.m});
  run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, ref);
  const std::vector<float> got = run_on_vulkan(TSR_OP_MATMUL, f.dtype, nullptr, {&x, &w},
                                               HostTensor(TSR_DTYPE_F32, {s.n, s.m}), {36, odd_offset(f.dtype, 24), 1028});
  const double error = relative_error(got, ref.to_f32());
  RecordProperty("relative_error", std::to_string(error));
  std::printf("[ quant matmul ] %s n=%lld k=%lld m=%lld: relative error %.3g\n", name_of(f.dtype).c_str(),
              static_cast<long long>(s.n), static_cast<long long>(k), static_cast<long long>(s.m), error);
  EXPECT_LT(error, kTolerance);
}

std::vector<MatmulCase> matmul_cases() {
  std::vector<MatmulCase> cases;
  for (const Format& f : kFormats) {
    for (const MatmulShape& s : kMatmulShapes) cases.push_back({f, s});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Formats, QuantMatmul, ::testing::ValuesIn(matmul_cases()), [](const auto& info) {
  const MatmulCase& c = info.param;
  return name_of(c.format.dtype) + "_n" + std::to_string(c.shape.n) + "_" + k_text(c.shape.k_size) + "_m" +
         std::to_string(c.shape.m);
});

// The raw blocks are really there: a weight of format f differs from the same random
// values quantised, in exactly the blocks b % 4 == 1 (a test of the test).
TEST(QuantWeights, RawBlocksReplaceEveryFourthBlock) {
  for (const Format& f : all_formats()) {
    const int64_t k = 3 * block_elems(f.dtype);
    const HostTensor w = quant_weights(f, 3, k, 81);
    const HostTensor plain = HostTensor::from_f32(f.dtype, {3, k}, random_values(static_cast<size_t>(3 * k), 81));
    const int64_t bytes = kit::dtype_traits(f.dtype).block_bytes;
    const auto* a = reinterpret_cast<const std::byte*>(w.desc().buffer->data) + w.desc().offset;
    const auto* b = reinterpret_cast<const std::byte*>(plain.desc().buffer->data) + plain.desc().offset;
    for (int64_t blk = 0; blk < 9; ++blk) {
      const bool differs = std::memcmp(a + blk * bytes, b + blk * bytes, static_cast<size_t>(bytes)) != 0;
      EXPECT_EQ(differs, blk % 4 == 1) << name_of(f.dtype) << " block " << blk;
    }
  }
}

}  // namespace
}  // namespace tessera::vulkan::test
