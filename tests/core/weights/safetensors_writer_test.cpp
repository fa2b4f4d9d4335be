// write_safetensors and write_hf_folder read back by SafetensorsFile and HfFolder:
// values per dtype, the aligned layout, sharding, and what the writers refuse.
#include "core/weights/safetensors_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/weights/hf_folder.h"
#include "core/weights/safetensors_file.h"
#include "safetensors_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

const std::vector<float> kValues = {0.1f, -1.5f, 3.14159f, 1000.25f, -0.0078125f, 42.0f};

// Relative error of f16 (11 significant bits) and bf16 (8 bits) rounding to nearest.
float tolerance(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return 1.0f / 2048;
    case DType::BF16:
      return 1.0f / 256;
    default:
      return 0.0f;
  }
}

void expect_values_near(DType dtype, const TensorView& t, const std::vector<float>& expected) {
  const std::vector<float> got = test::decode(dtype, t.data, t.n_elements());
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], std::fabs(expected[i]) * tolerance(dtype))
        << t.name << "[" << i << "]";
  }
}

class SafetensorsRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(SafetensorsRoundTrip, ValuesShapeAndDtypeSurvive) {
  const DType dtype = GetParam();
  const std::vector<uint8_t> bytes = test::encode(dtype, kValues);
  const std::string path = test::temp_path("round.safetensors");
  write_safetensors(path, {{.name = "w", .dtype = dtype, .shape = {2, 3}, .bytes = bytes}});

  const auto file = SafetensorsFile::open(path);
  ASSERT_EQ(file->tensors().size(), 1u);
  const TensorView& t = file->tensors()[0];
  EXPECT_EQ(t.dtype, dtype);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<uint8_t>(static_cast<const uint8_t*>(t.data),
                                 static_cast<const uint8_t*>(t.data) + t.n_bytes),
            bytes);
  expect_values_near(dtype, t, kValues);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SafetensorsRoundTrip,
                         ::testing::Values(DType::F32, DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(SafetensorsWriter, I32TensorRoundTrips) {
  const std::vector<int32_t> ids = {7, -1, 2147483647};
  const std::string path = test::temp_path("ids.safetensors");
  write_safetensors(path, {{.name = "ids", .dtype = DType::I32, .shape = {3},
                            .bytes = {reinterpret_cast<const uint8_t*>(ids.data()), 12}}});
  const auto file = SafetensorsFile::open(path);
  const TensorView* t = file->find_tensor("ids");
  ASSERT_NE(t, nullptr);
  const auto* got = static_cast<const int32_t*>(t->data);
  EXPECT_EQ(std::vector<int32_t>(got, got + 3), ids);
}

TEST(SafetensorsWriter, MetadataRoundTripsAsStrings) {
  const std::string path = test::temp_path("meta.safetensors");
  write_safetensors(path, {}, {{"format", "pt"}, {"note", "a \"quoted\" value"}});
  const auto file = SafetensorsFile::open(path);
  ASSERT_EQ(file->metadata().size(), 2u);
  EXPECT_EQ(file->find_meta("format")->as_string(), "pt");
  EXPECT_EQ(file->find_meta("note")->as_string(), "a \"quoted\" value");
}

TEST(SafetensorsWriter, TensorsAreBackToBackAndAlignedToTheirElements) {
  // Odd-sized f16 tensors between f32 ones: laid out f32 first, so nothing misaligns.
  const std::vector<uint8_t> h3 = test::encode(DType::F16, {1, 2, 3});
  const std::vector<uint8_t> f1 = test::encode(DType::F32, {4});
  const std::vector<uint8_t> b5 = test::encode(DType::BF16, {5, 6, 7, 8, 9});
  const std::vector<uint8_t> f2 = test::encode(DType::F32, {10, 11});
  const std::string path = test::temp_path("layout.safetensors");
  write_safetensors(path, {{.name = "a_h3", .dtype = DType::F16, .shape = {3}, .bytes = h3},
                           {.name = "b_f1", .dtype = DType::F32, .shape = {1}, .bytes = f1},
                           {.name = "c_b5", .dtype = DType::BF16, .shape = {5}, .bytes = b5},
                           {.name = "d_f2", .dtype = DType::F32, .shape = {2}, .bytes = f2}});
  const auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->data_offset() % 8, 0u);
  EXPECT_EQ(fs::file_size(path), file->data_offset() + 28);  // 28 tensor bytes, no gaps
  // Order in the data section: b_f1, d_f2 (4-byte elements), then a_h3, c_b5 (2-byte).
  const std::vector<uint8_t> on_disk = test::read_bytes(path);
  EXPECT_EQ(std::vector<uint8_t>(on_disk.begin() + file->data_offset(),
                                 on_disk.begin() + file->data_offset() + 4),
            f1);
  const auto* first = static_cast<const uint8_t*>(file->find_tensor("b_f1")->data);
  const auto offset_of = [&](const char* name) {
    return static_cast<const uint8_t*>(file->find_tensor(name)->data) - first;
  };
  EXPECT_EQ(offset_of("d_f2"), 4);
  EXPECT_EQ(offset_of("a_h3"), 12);
  EXPECT_EQ(offset_of("c_b5"), 18);
  for (const TensorView& t : file->tensors()) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % dtype_block_bytes(t.dtype), 0u) << t.name;
  }
  expect_values_near(DType::BF16, *file->find_tensor("c_b5"), {5, 6, 7, 8, 9});
}

TEST(SafetensorsWriter, RefusesDuplicateNamesAndLeavesNoFile) {
  const std::vector<uint8_t> bytes = test::encode(DType::F32, {1});
  const std::string path = test::temp_path("dup.safetensors");
  test::expect_error_message(
      [&] {
        write_safetensors(path, {{.name = "w", .dtype = DType::F32, .shape = {1}, .bytes = bytes},
                                 {.name = "w", .dtype = DType::F32, .shape = {1}, .bytes = bytes}});
      },
      path + ": cannot write tensor 'w': a tensor of that name was already given");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(SafetensorsWriter, RefusesQ8_0) {
  const std::vector<uint8_t> block(34, 0);
  const std::string path = test::temp_path("q8.safetensors");
  test::expect_error_message(
      [&] {
        write_safetensors(path, {{.name = "q", .dtype = DType::Q8_0, .shape = {32}, .bytes = block}});
      },
      path + ": cannot write tensor 'q': safetensors cannot hold q8_0 tensors");
}

TEST(SafetensorsWriter, RefusesBytesThatDoNotMatchTheShape) {
  const std::vector<uint8_t> bytes = test::encode(DType::F16, {1, 2, 3});
  const std::string path = test::temp_path("size.safetensors");
  test::expect_error_message(
      [&] {
        write_safetensors(path, {{.name = "w", .dtype = DType::F16, .shape = {2, 2}, .bytes = bytes}});
      },
      path + ": cannot write tensor 'w': 6 bytes given, but the shape needs 4 x 2");
}

TEST(SafetensorsWriter, RefusesNegativeDimensionsAndTheReservedName) {
  const std::string path = test::temp_path("bad.safetensors");
  test::expect_error_message(
      [&] { write_safetensors(path, {{.name = "w", .dtype = DType::F32, .shape = {-1}, .bytes = {}}}); },
      path + ": cannot write tensor 'w': dimension -1 is negative");
  test::expect_error_message(
      [&] { write_safetensors(path, {{.name = "__metadata__", .dtype = DType::F32, .shape = {0}, .bytes = {}}}); },
      path + ": cannot write tensor '__metadata__': the name is reserved for the file's metadata");
}

}  // namespace
}  // namespace tessera
