// The finiteness check of weights: a NaN or infinity anywhere in an f32, f16 or
// block-quantised tensor is found, named with its tensor and element; clean files pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "core/weights/weight_check.h"
#include "support/testdata.h"

namespace tessera {
namespace {

TensorView view_of(const std::string& name, DType dtype, std::vector<int64_t> shape, const std::vector<uint8_t>& bytes) {
  TensorView t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = bytes.data();
  t.n_bytes = bytes.size();
  return t;
}

std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(WeightCheck, FindsTheFirstNanOfAnF32Matrix) {
  std::vector<float> v(6 * 5, 0.5f);
  v[13] = std::numeric_limits<float>::quiet_NaN();
  v[20] = std::numeric_limits<float>::infinity();
  const auto bytes = f32_bytes(v);
  const auto bad = find_non_finite(view_of("w", DType::F32, {6, 5}, bytes));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->tensor, "w");
  EXPECT_EQ(bad->index, 13);
  EXPECT_TRUE(std::isnan(bad->value));
}

TEST(WeightCheck, FindsAnInfiniteBlockScale) {
  // One q8_0 block of 32: an f16 scale of +inf (0x7c00) makes every element inf or nan.
  std::vector<uint8_t> block(34, 1);
  block[0] = 0x00;
  block[1] = 0x7c;
  const auto bad = find_non_finite(view_of("q", DType::Q8_0, {1, 32}, block));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 0);
  EXPECT_FALSE(std::isfinite(bad->value));
}

TEST(WeightCheck, CleanTensorsAndIntegerTensorsPass) {
  const auto bytes = f32_bytes(std::vector<float>(8, -1.25f));
  EXPECT_FALSE(find_non_finite(view_of("w", DType::F32, {8}, bytes)).has_value());
  EXPECT_FALSE(find_non_finite(view_of("ids", DType::I32, {8}, bytes)).has_value());
  EXPECT_NO_THROW(check_weights_finite(*GgufFile::open(test::testdata_path("stories260K/stories260K.gguf"))));
}

}  // namespace
}  // namespace tessera
