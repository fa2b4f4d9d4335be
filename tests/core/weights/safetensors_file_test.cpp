// SafetensorsFile on files assembled byte by byte, laid out as the format's reference
// writer lays them out: what each tensor view and metadata entry holds.
#include "core/weights/safetensors_file.h"

#include <gtest/gtest.h>

#include "safetensors_test_util.h"

namespace tessera {
namespace {

// a: F32 [2, 2] at [0, 16); b: F16 [3] at [16, 22); a header of 143 bytes padded to
// 144 so that the data section starts at offset 152, a multiple of 8.
std::vector<uint8_t> two_tensor_file() {
  std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("b":{"dtype":"F16","shape":[3],"data_offsets":[16,22]},)"
      R"("a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
  header.resize(144, ' ');
  std::vector<uint8_t> data = test::encode(DType::F32, {1.0f, -2.0f, 0.5f, 3.25f});
  const std::vector<uint8_t> b = test::encode(DType::F16, {0.25f, -1.0f, 65504.0f});
  data.insert(data.end(), b.begin(), b.end());
  return test::safetensors_bytes(header, data);
}

TEST(SafetensorsFile, TensorsAreSortedByNameWithDtypeAndShape) {
  const auto file = SafetensorsFile::open(test::write_temp("two.safetensors", two_tensor_file()));
  ASSERT_EQ(file->tensors().size(), 2u);
  const TensorView& a = file->tensors()[0];
  const TensorView& b = file->tensors()[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.dtype, DType::F32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.n_bytes, 16u);
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.dtype, DType::F16);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.n_bytes, 6u);
  EXPECT_EQ(file->format(), "safetensors");
}

TEST(SafetensorsFile, ViewsPointIntoTheDataSection) {
  const auto file = SafetensorsFile::open(test::write_temp("two.safetensors", two_tensor_file()));
  EXPECT_EQ(file->data_offset(), 152u);
  // Exact: these values are representable in f32 and f16.
  EXPECT_EQ(test::decode(DType::F32, file->find_tensor("a")->data, 4),
            (std::vector<float>{1.0f, -2.0f, 0.5f, 3.25f}));
  EXPECT_EQ(test::decode(DType::F16, file->find_tensor("b")->data, 3),
            (std::vector<float>{0.25f, -1.0f, 65504.0f}));
}

TEST(SafetensorsFile, MetadataEntriesAreStrings) {
  const auto file = SafetensorsFile::open(test::write_temp("two.safetensors", two_tensor_file()));
  ASSERT_EQ(file->metadata().size(), 1u);
  EXPECT_EQ(file->find_meta("format")->as_string(), "pt");
}

TEST(SafetensorsFile, ScalarAndEmptyTensorsAreAccepted) {
  std::string header =
      R"({"empty":{"dtype":"BF16","shape":[0,4],"data_offsets":[4,4]},)"
      R"("scalar":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})";
  const int32_t value = -7;
  std::vector<uint8_t> data(4);
  std::memcpy(data.data(), &value, 4);
  header.resize(120, ' ');  // 118 bytes of JSON
  const auto file =
      SafetensorsFile::open(test::write_temp("scalar.safetensors", test::safetensors_bytes(header, data)));
  const TensorView* scalar = file->find_tensor("scalar");
  ASSERT_NE(scalar, nullptr);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->n_elements(), 1);
  EXPECT_EQ(*static_cast<const int32_t*>(scalar->data), -7);
  const TensorView* empty = file->find_tensor("empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->n_elements(), 0);
  EXPECT_EQ(empty->n_bytes, 0u);
}

TEST(SafetensorsFile, FileWithNoTensorsHasNone) {
  const auto file = SafetensorsFile::open(
      test::write_temp("none.safetensors", test::safetensors_bytes("{}      ", {})));
  EXPECT_TRUE(file->tensors().empty());
  EXPECT_TRUE(file->metadata().empty());
}

TEST(SafetensorsFile, SignatureIsALengthThatFitsThenABrace) {
  const std::vector<uint8_t> good = test::safetensors_bytes("{}", {});
  EXPECT_TRUE(SafetensorsFile::has_signature(good));
  EXPECT_FALSE(SafetensorsFile::has_signature(test::safetensors_bytes("[]", {})));
  std::vector<uint8_t> too_long = good;
  too_long[0] = 3;  // header length 3, one byte more than there is
  EXPECT_FALSE(SafetensorsFile::has_signature(too_long));
  EXPECT_FALSE(SafetensorsFile::has_signature(std::vector<uint8_t>(8, 0)));
}

}  // namespace
}  // namespace tessera
