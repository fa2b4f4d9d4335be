// GGUF files of every block format: each tensor's type, shape and extent are read as
// written, and data that would compute garbage (a NaN or infinite scale, a row that is
// not a whole number of blocks) is refused with the tensor named.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_writer.h"
#include "support/temp_path.h"

namespace tessera {
namespace {

// A GGUF with one tensor `name` of `dtype` [rows, cols] holding `bytes`.
std::string write_one(const std::string& file, DType dtype, int64_t rows, int64_t cols, std::vector<uint8_t> bytes) {
  const std::string path = test::temp_path(file);
  GgufWriter w;
  w.set_meta("general.architecture", MetaValue{std::string("llama"), 8});
  w.add_tensor("blk.0.ffn_down.weight", dtype, {rows, cols}, [bytes](int64_t first, int64_t n, void* dst) {
    const size_t row = bytes.size() / 2;
    std::memcpy(dst, bytes.data() + first * row, static_cast<size_t>(n) * row);
  });
  w.write(path);
  return path;
}

class GgufBlockFormat : public ::testing::TestWithParam<DType> {};

TEST_P(GgufBlockFormat, ReadsTheTypeShapeAndBytes) {
  const DType dtype = GetParam();
  const int64_t cols = 2 * dtype_block_elems(dtype);
  std::vector<float> values(static_cast<size_t>(2 * cols));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) - 6.0f;
  std::vector<uint8_t> bytes(static_cast<size_t>(2 * dtype_row_bytes(dtype, cols)));
  quantize_row(dtype, values.data(), bytes.data(), 2 * cols);
  const std::string path = write_one("blocks.gguf", dtype, 2, cols, bytes);
  const auto file = GgufFile::open(path);
  const TensorView* t = file->find_tensor("blk.0.ffn_down.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, dtype);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, cols}));
  ASSERT_EQ(t->n_bytes, bytes.size());
  EXPECT_EQ(std::memcmp(t->data, bytes.data(), bytes.size()), 0);
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(EveryBlockFormat, GgufBlockFormat,
                         ::testing::Values(DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0,
                                           DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K,
                                           DType::IQ4_NL, DType::IQ4_XS),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

std::string error_of(const std::string& path) {
  try {
    GgufFile::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(GgufBlockFormats, RefusesAnInfiniteScaleNamingTheTensorAndBlock) {
  std::vector<float> values(1024, 0.5f);
  std::vector<uint8_t> bytes(static_cast<size_t>(dtype_row_bytes(DType::Q4_K, 1024)));
  quantize_row(DType::Q4_K, values.data(), bytes.data(), 1024);
  const uint16_t inf = 0x7c00;
  std::memcpy(bytes.data() + 144 * 3 + 2, &inf, 2);  // dmin of block 3 (row 1)
  const std::string path = write_one("inf_scale.gguf", DType::Q4_K, 2, 512, bytes);
  EXPECT_NE(error_of(path).find("tensor 'blk.0.ffn_down.weight' block 3 (row 1) has a non-finite scale dmin = inf"),
            std::string::npos)
      << error_of(path);
  std::filesystem::remove(path);
}

TEST(GgufBlockFormats, RefusesANanScale) {
  std::vector<uint8_t> bytes(2 * 18, 0);
  const uint16_t nan = 0x7e00;
  std::memcpy(bytes.data(), &nan, 2);
  const std::string path = write_one("nan_scale.gguf", DType::Q4_0, 2, 32, bytes);
  EXPECT_NE(error_of(path).find("block 0 (row 0) has a non-finite scale d = nan"), std::string::npos) << error_of(path);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tessera
