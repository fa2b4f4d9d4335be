// kit::dequantize_row against gguf-py's dequantisation of the same blocks, bit for bit
// (tests/fixtures/quant/dequant.gguf: random blocks and edge cases of each format).
#include <tessera/kit/dequantize.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/tensor_info.h>
#include <tessera/kit/kernel_error.h>

#include "plugins/kit/quant_fixture.h"

namespace tessera {
namespace {

class DequantizeFixture : public ::testing::TestWithParam<tsr_dtype> {};

TEST_P(DequantizeFixture, EqualsGgufPyBitForBit) {
  const tsr_dtype dtype = GetParam();
  const std::string name(kit::dtype_traits(dtype).name);
  const auto file = test::open_quant_fixture("dequant.gguf");
  const TensorView& blocks = test::fixture_tensor(*file, name + ".blocks");
  const TensorView& expected = test::fixture_tensor(*file, name + ".dequant");
  ASSERT_EQ(to_abi(blocks.dtype), dtype) << "the GGUF reader mapped the type of " << name;
  ASSERT_EQ(expected.dtype, DType::F32);
  ASSERT_EQ(blocks.shape, expected.shape);
  const int64_t rows = blocks.shape[0], cols = blocks.shape[1];
  ASSERT_EQ(blocks.n_bytes, static_cast<uint64_t>(rows * kit::dtype_row_bytes(dtype, cols)));

  std::vector<float> got(static_cast<size_t>(rows * cols));
  const auto* src = static_cast<const std::byte*>(blocks.data);
  for (int64_t r = 0; r < rows; ++r) {
    kit::dequantize_row(dtype, src + r * kit::dtype_row_bytes(dtype, cols), got.data() + r * cols, cols);
  }
  const auto* want = static_cast<const float*>(expected.data);
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < rows * cols; ++i) {
    uint32_t wb;
    std::memcpy(&wb, want + i, sizeof wb);
    if (std::bit_cast<uint32_t>(got[static_cast<size_t>(i)]) != wb) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0) << name << ": first mismatch at element " << first << ": got "
                           << (first >= 0 ? got[static_cast<size_t>(first)] : 0.0f) << ", gguf-py "
                           << (first >= 0 ? want[first] : 0.0f);
}

INSTANTIATE_TEST_SUITE_P(EveryBlockFormat, DequantizeFixture, ::testing::ValuesIn(test::fixture_block_formats()),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

TEST(Dequantize, RefusesAPartialBlock) {
  std::vector<uint8_t> bytes(144);
  std::vector<float> out(256);
  try {
    kit::dequantize_row(TSR_DTYPE_Q4_K, bytes.data(), out.data(), 200);
    FAIL() << "no error";
  } catch (const kit::KernelError& e) {
    EXPECT_STREQ(e.what(), "dequantize: a row of 200 elements is not a whole number of q4_k blocks of 256");
  }
}

TEST(Dequantize, RefusesI32) {
  int32_t v = 1;
  float out = 0;
  EXPECT_THROW(kit::dequantize_row(TSR_DTYPE_I32, &v, &out, 1), kit::KernelError);
}

}  // namespace
}  // namespace tessera
