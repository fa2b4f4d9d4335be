// The block-format MATMUL and GET_ROWS kernels against the reference, for every format:
// odd M, K a multiple of the block only, few rows of x (decode) and many (prefill), on 1
// and 2 threads.
//
// Tolerance, per output, computed from the actual weights and x. The optimised kernel
// rounds x to int8 per block of 32 (per 256 for the K formats) with step
// d = max |x_block| / 127, so |x - x'| <= d / 2 and the output may move by
// sum_k |w[m, k]| * d(k) / 2 (+1%). The block's d and, for the formats with a min, d * sum(q)
// are rounded to f16 (relative 2^-11): allowed as 2^-9 * sum over blocks of
// max |w| * sum |x|. Plus 1e-5 x max |reference| for f32 summation order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <cstdlib>
#include <string>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/kit/tensor_info.h>

#include "backends/cpu/amx_support.h"
#include "backends/cpu/buffer.h"
#include "backends/cpu/device.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/matmul_quant.h"
#include "backends/cpu/ops/iq4xs_rows8.h"
#include "backends/cpu/ops/q40_rows8.h"
#include "backends/cpu/ops/q4k_rows8.h"
#include "backends/cpu/ops/q50_rows8.h"
#include "backends/cpu/ops/q6k_rows8.h"
#include "backends/cpu/ops/q80_rows8.h"
#include "backends/cpu/repacked_weights.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

const std::vector<tsr_dtype> kFormats = {TSR_DTYPE_Q8_0, TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0,   TSR_DTYPE_Q5_1,
                                         TSR_DTYPE_Q2_K, TSR_DTYPE_Q3_K, TSR_DTYPE_Q4_K,   TSR_DTYPE_Q5_K,
                                         TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_NL, TSR_DTYPE_IQ4_XS};

struct Case {
  tsr_dtype dtype;
  int64_t n, m, blocks;  // k = blocks * the format's block size
};

std::string case_name(const Case& c) {
  return std::string(kit::dtype_traits(c.dtype).name) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m) +
         "_blocks" + std::to_string(c.blocks);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const tsr_dtype dtype : kFormats) {
    const bool super = kit::dtype_traits(dtype).block_elems == 256;
    for (const int64_t n : {1, 2, 3, 4, 5, 37}) {
      const int64_t m = n % 2 ? 33 : 7;
      out.push_back({dtype, n, m, n <= 2 ? (super ? 17 : 129) : 3});
    }
    out.push_back({dtype, 1, 1, 1});
    out.push_back({dtype, 4, 130, 2});
    out.push_back({dtype, 13, 53, 2});  // prefill: three whole panels of sixteen rows and a tail of five
    // Decode in groups of sixteen rows (AVX-512, all but Q8_0, Q5_K and IQ4_XS) with a tail
    // of eight.
    out.push_back({dtype, 1, 40, 5});
    out.push_back({dtype, 3, 24, 4});
  }
  return out;
}

class QuantMatmul : public ::testing::TestWithParam<Case> {};

// x [c.n, k] times w [c.m, k] by the optimised kernel, on 1 and 2 threads, against the
// reference within the bound above.
void expect_matches_reference(const Case& c, const std::vector<float>& xv, const HostTensor& w) {
  const int64_t k = c.blocks * kit::dtype_traits(c.dtype).block_elems;
  const HostTensor x = HostTensor::f32({c.n, k}, xv);
  const std::vector<float> wf = w.to_f32();

  CpuDevice ref_device(1);
  HostTensor expected(TSR_DTYPE_F32, {c.n, c.m});
  ASSERT_EQ(run_kernel(ref_device, matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, expected), TSR_OK)
      << ref_device.last_error();
  const std::vector<float> want = expected.to_f32();
  float max_ref = 0.0f;
  for (const float v : want) max_ref = std::max(max_ref, std::fabs(v));

  // Per output, the bound on the error from rounding x to int8.
  const int64_t xblock = kit::dtype_traits(c.dtype).block_elems == 256 ? 256 : 32;
  std::vector<double> bound(want.size(), 1e-5 * max_ref);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t mm = 0; mm < c.m; ++mm) {
      double rounding = 0, scales = 0;
      for (int64_t blk = 0; blk < k / xblock; ++blk) {
        float amax = 0.0f;
        double wsum = 0;
        for (int i = 0; i < xblock; ++i) {
          amax = std::max(amax, std::fabs(xv[static_cast<size_t>(n * k + blk * xblock + i)]));
          wsum += std::fabs(wf[static_cast<size_t>(mm * k + blk * xblock + i)]);
        }
        rounding += wsum * amax / 127.0 / 2.0;
      }
      for (int64_t blk = 0; blk < k / 32; ++blk) {
        double wmax = 0, xsum = 0;
        for (int i = 0; i < 32; ++i) {
          wmax = std::max<double>(wmax, std::fabs(wf[static_cast<size_t>(mm * k + blk * 32 + i)]));
          xsum += std::fabs(xv[static_cast<size_t>(n * k + blk * 32 + i)]);
        }
        scales += wmax * xsum;
      }
      bound[static_cast<size_t>(n * c.m + mm)] += 1.01 * rounding + std::ldexp(scales, -9);
    }
  }
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    CpuDevice device(threads);
    HostTensor actual(TSR_DTYPE_F32, {c.n, c.m});
    ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, actual), TSR_OK)
        << device.last_error();
    const std::vector<float> got = actual.to_f32();
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!(std::fabs(got[i] - want[i]) <= bound[i])) {
        if (++bad <= 3) ADD_FAILURE() << "out[" << i << "] = " << got[i] << ", reference " << want[i] << ", bound " << bound[i];
      }
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST_P(QuantMatmul, MatchesTheReferenceWithinTheActivationRounding) {
  const Case& c = GetParam();
  const int64_t k = c.blocks * kit::dtype_traits(c.dtype).block_elems;
  expect_matches_reference(
      c, random_values(static_cast<size_t>(c.n * k), 21),
      HostTensor::from_f32(c.dtype, {c.m, k}, random_values(static_cast<size_t>(c.m * k), 22)));
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, QuantMatmul, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return case_name(info.param); });

// Every level (and scale, and min) at its format's largest value, against x of one sign
// whose every int8 is 127 or -127: the largest integer sums a kernel can meet. The AVX2
// kernels add their byte dots in int16 while those cannot overflow (byte_dot.h); one more
// term there would wrap here.
class QuantMatmulExtremes : public ::testing::TestWithParam<tsr_dtype> {};

struct HalfFields {
  tsr_dtype dtype;
  size_t d, second;  // offsets of the block's f16 scale and of its min (or 0: none)
};

const HalfFields kHalfFields[] = {
    {TSR_DTYPE_Q8_0, offsetof(kit::BlockQ8_0, d), 0},
    {TSR_DTYPE_Q4_0, offsetof(kit::BlockQ4_0, d), 0},
    {TSR_DTYPE_Q4_1, offsetof(kit::BlockQ4_1, d), offsetof(kit::BlockQ4_1, m)},
    {TSR_DTYPE_Q5_0, offsetof(kit::BlockQ5_0, d), 0},
    {TSR_DTYPE_Q5_1, offsetof(kit::BlockQ5_1, d), offsetof(kit::BlockQ5_1, m)},
    {TSR_DTYPE_Q4_K, offsetof(kit::BlockQ4_K, d), offsetof(kit::BlockQ4_K, dmin)},
    {TSR_DTYPE_Q5_K, offsetof(kit::BlockQ5_K, d), offsetof(kit::BlockQ5_K, dmin)},
    {TSR_DTYPE_Q6_K, offsetof(kit::BlockQ6_K, d), 0},
    {TSR_DTYPE_IQ4_NL, offsetof(kit::BlockIQ4_NL, d), 0},
    {TSR_DTYPE_IQ4_XS, offsetof(kit::BlockIQ4_XS, d), 0},
};

TEST_P(QuantMatmulExtremes, MatchTheReference) {
  const tsr_dtype dtype = GetParam();
  const auto& traits = kit::dtype_traits(dtype);
  const HalfFields* fields = nullptr;
  for (const HalfFields& f : kHalfFields) {
    if (f.dtype == dtype) fields = &f;
  }
  ASSERT_NE(fields, nullptr);
  for (const int64_t n : {1, 2, 4}) {  // decode, and prefill tiles of 2 and 4 rows of x
    const Case c{dtype, n, 40, 4};
    const int64_t k = c.blocks * traits.block_elems;
    // All bits set, then the f16 fields made finite: d = 1, a min of 0.5.
    HostTensor w(dtype, {c.m, k});
    const size_t blocks = static_cast<size_t>(c.m * c.blocks);
    std::memset(w.bytes(), 0xFF, blocks * static_cast<size_t>(traits.block_bytes));
    for (size_t b = 0; b < blocks; ++b) {
      std::byte* block = w.bytes() + b * static_cast<size_t>(traits.block_bytes);
      const uint16_t one = 0x3C00, half = 0x3800;
      std::memcpy(block + fields->d, &one, 2);
      if (fields->second != 0) std::memcpy(block + fields->second, &half, 2);
    }
    for (const float sign : {1.0f, -1.0f}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", x " + std::to_string(sign));
      expect_matches_reference(c, std::vector<float>(static_cast<size_t>(n * k), sign), w);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, QuantMatmulExtremes,
                         ::testing::Values(TSR_DTYPE_Q8_0, TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0,
                                           TSR_DTYPE_Q5_1, TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K,
                                           TSR_DTYPE_IQ4_NL, TSR_DTYPE_IQ4_XS),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

// Prefill (many rows of x: the AMX tiles, the VNNI panel or the eight-row kernel, as
// TESSERA_CPU_MATMUL and the machine choose) and decode (one row of x, the eight-row
// kernel) form the same integer sums and the same float operations per block, so each row
// of a prefill equals that row decoded alone, bit for bit.
class QuantPrefillRows : public ::testing::TestWithParam<tsr_dtype> {};

// Rows of a prefill of n rows of x (random, k = 3 blocks) against each row decoded alone.
void expect_prefill_rows_equal_decode(tsr_dtype dtype, int64_t n) {
  const int64_t m = 48, k = 3 * kit::dtype_traits(dtype).block_elems;
  const std::vector<float> xv = random_values(static_cast<size_t>(n * k), 31, -3.0f, 2.0f);
  const HostTensor w = HostTensor::from_f32(dtype, {m, k}, random_values(static_cast<size_t>(m * k), 32));
  CpuDevice device(2);
  HostTensor all(TSR_DTYPE_F32, {n, m});
  const HostTensor x = HostTensor::f32({n, k}, xv);
  ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, all), TSR_OK) << device.last_error();
  const std::vector<float> got = all.to_f32();
  for (int64_t row = 0; row < n; ++row) {
    const HostTensor one = HostTensor::f32({1, k}, std::vector<float>(xv.begin() + row * k, xv.begin() + (row + 1) * k));
    HostTensor single(TSR_DTYPE_F32, {1, m});
    ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&one, &w}, single), TSR_OK);
    const std::vector<float> want = single.to_f32();
    for (int64_t c = 0; c < m; ++c) {
      ASSERT_EQ(got[static_cast<size_t>(row * m + c)], want[static_cast<size_t>(c)]) << "row " << row << " col " << c;
    }
  }
}

TEST_P(QuantPrefillRows, EqualEachRowDecodedAlone) {
  const tsr_dtype dtype = GetParam();
  // 21 to 23 rows of x: one whole AMX tile of sixteen and a tail of five to seven; for the
  // row-group kernels, tiles of four rows and a last one of each narrower width.
  for (const int64_t n : {21, 22, 23}) {
    SCOPED_TRACE("rows of x " + std::to_string(n));
    expect_prefill_rows_equal_decode(dtype, n);
  }
}

TEST_P(QuantPrefillRows, EqualEachRowDecodedAloneOverBlocksOfX) {
  // 135 rows of x: the row-group kernels' prefill meets them in blocks of 64 (two whole
  // blocks, then one of seven ending in a tile of three).
  expect_prefill_rows_equal_decode(GetParam(), 135);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, QuantPrefillRows, ::testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

// The prefill path in use follows the kernels' instruction set (isa.h) and
// TESSERA_CPU_MATMUL: portable dequantises, avx2 runs the decode kernel, avx512 the AMX
// tiles where they are usable, else the VNNI panel, unless TESSERA_CPU_MATMUL asks for
// rows or vnni.
TEST(QuantPrefillPath, FollowsTheInstructionSetAndTheRequest) {
  const char* env = std::getenv("TESSERA_CPU_MATMUL");
  const std::string request = env == nullptr ? "" : env;
  std::string want;
  switch (isa_in_use()) {
    case CpuIsa::kPortable: want = "portable"; break;
    case CpuIsa::kAvx2: want = "rows"; break;
    case CpuIsa::kAvx512:
      want = request == "rows" ? "rows" : request == "vnni" ? "vnni" : amx_usable() ? "amx" : "vnni";
      break;
  }
  EXPECT_EQ(quant_prefill_path(), want) << "kernels " << isa_choice() << ", AMX " << amx_status();
}

// Decode of every block format but Q2_K and Q3_K makes the row-group copy of their weight
// (eight rows a group; sixteen under AVX-512 for Q4_K, Q5_K, Q6_K, IQ4_XS and the 4- and 5-bit
// 32-element formats) once (the rows of
// whole groups, not the tail) and keep it with the buffer, where the
// avx2 and avx512 kernels run and TESSERA_CPU_DECODE_REPACK is not "off" (by default the
// copy, a few KiB here, fits the memory rule on any machine that runs the tests); prefill
// makes none, nor decode otherwise.
class DecodeCopy : public ::testing::TestWithParam<tsr_dtype> {};

// Bytes of the copy per row and block (the sixteen-row groups hold the same per row).
size_t row_block_bytes(tsr_dtype dtype) {
  static_assert(sizeof(Q40Rows16) == 2 * sizeof(Q40Rows8) && sizeof(Q41Rows16) == 2 * sizeof(Q41Rows8) &&
                sizeof(IQ4NLRows16) == 2 * sizeof(IQ4NLRows8) && sizeof(Q50Rows16) == 2 * sizeof(Q50Rows8) &&
                sizeof(Q51Rows16) == 2 * sizeof(Q51Rows8) && sizeof(Q4KRows16) == 2 * sizeof(Q4KRows8) &&
                sizeof(Q5KRows16) == 2 * sizeof(Q5KRows8) && sizeof(Q6KRows16) == 2 * sizeof(Q6KRows8) &&
                sizeof(IQ4XSRows16) == 2 * sizeof(IQ4XSRows8));
  switch (dtype) {
    case TSR_DTYPE_Q4_K: return sizeof(Q4KRows8) / 8;
    case TSR_DTYPE_Q5_K: return sizeof(Q5KRows8) / 8;
    case TSR_DTYPE_Q6_K: return sizeof(Q6KRows8) / 8;
    case TSR_DTYPE_Q4_0: return sizeof(Q40Rows8) / 8;
    case TSR_DTYPE_Q4_1: return sizeof(Q41Rows8) / 8;
    case TSR_DTYPE_IQ4_NL: return sizeof(IQ4NLRows8) / 8;
    case TSR_DTYPE_Q5_0: return sizeof(Q50Rows8) / 8;
    case TSR_DTYPE_Q5_1: return sizeof(Q51Rows8) / 8;
    case TSR_DTYPE_IQ4_XS: return sizeof(IQ4XSRows8) / 8;
    case TSR_DTYPE_Q8_0: return sizeof(Q80Rows8) / 8;
    default: return 0;
  }
}

TEST_P(DecodeCopy, IsMadeOnceAtTheFirstDecodeAndKeptWithTheBuffer) {
  const tsr_dtype dtype = GetParam();
  const int64_t m = 19, k = 512, blocks = k / kit::dtype_traits(dtype).block_elems;
  const HostTensor w = HostTensor::from_f32(dtype, {m, k}, random_values(static_cast<size_t>(m * k), 41));
  const HostTensor x1 = HostTensor::f32({1, k}, random_values(static_cast<size_t>(k), 42));
  const HostTensor x9 = HostTensor::f32({9, k}, random_values(static_cast<size_t>(9 * k), 43));
  CpuDevice device(2);
  HostTensor out9(TSR_DTYPE_F32, {9, m}), out1(TSR_DTYPE_F32, {1, m});
  RepackedWeights& copies = w.desc().buffer->repacked;
  const char* env = std::getenv("TESSERA_CPU_DECODE_REPACK");
  const std::string want = env == nullptr ? "" : env;
  ASSERT_EQ(decode_repack(), want == "off"  ? DecodeRepack::kOff
                             : want == "on" ? DecodeRepack::kOn
                                            : DecodeRepack::kAuto);
  const bool kept = isa_in_use() != CpuIsa::kPortable && decode_repack() != DecodeRepack::kOff;
  // Prefill makes it only where it reads it: on the rows path, not the VNNI or AMX panels.
  ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&x9, &w}, out9), TSR_OK) << device.last_error();
  EXPECT_EQ(copies.count(), kept && std::string(quant_prefill_path()) == "rows" ? 1u : 0u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&x1, &w}, out1), TSR_OK) << device.last_error();
    EXPECT_EQ(copies.count(), kept ? 1u : 0u);
    // The 16 rows of whole groups: two of eight, or one of sixteen.
    EXPECT_EQ(copies.bytes(), kept ? 16 * blocks * row_block_bytes(dtype) : 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(CopiedFormats, DecodeCopy,
                         ::testing::Values(TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_XS,
                                           TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_IQ4_NL, TSR_DTYPE_Q5_0,
                                           TSR_DTYPE_Q5_1, TSR_DTYPE_Q8_0),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

class QuantGetRows : public ::testing::TestWithParam<tsr_dtype> {};

TEST_P(QuantGetRows, SelectsTheDequantisedRows) {
  const tsr_dtype dtype = GetParam();
  const int64_t cols = 2 * kit::dtype_traits(dtype).block_elems, rows = 5;
  const HostTensor table = HostTensor::from_f32(dtype, {rows, cols}, random_values(static_cast<size_t>(rows * cols), 5));
  const HostTensor idx = HostTensor::i32({3}, {4, 0, 4});
  HostTensor out(TSR_DTYPE_F32, {3, cols});
  CpuDevice device(1);
  ASSERT_EQ(run_kernel(device, get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, out), TSR_OK)
      << device.last_error();
  const std::vector<float> all = table.to_f32(), got = out.to_f32();
  for (int i = 0; i < 3; ++i) {
    const int row = i == 1 ? 0 : 4;
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(got[static_cast<size_t>(i * cols + c)], all[static_cast<size_t>(row * cols + c)]) << "row " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, QuantGetRows, ::testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

}  // namespace
}  // namespace tessera::cpu::test
