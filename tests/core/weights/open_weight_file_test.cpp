// open_weight_file(): picks the reader from the path (a model folder) or the first
// bytes, and explains why a file is none of the formats.
#include <gtest/gtest.h>

#include <cstring>

#include "core/weights/weight_file.h"
#include "core/weights/safetensors_writer.h"
#include "safetensors_test_util.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

TEST(OpenWeightFile, GgufMagicSelectsTheGgufReader) {
  const auto file = open_weight_file(test::testdata_path("stories260K/stories260K.gguf"));
  EXPECT_EQ(file->format(), "gguf");
  EXPECT_EQ(file->tensors().size(), 48u);
}

TEST(OpenWeightFile, PlausibleHeaderOfExactSizeSelectsLlama2c) {
  const auto file = open_weight_file(test::testdata_path("stories260K/stories260K.bin"),
                                     test::testdata_path("stories260K/tok512.bin"));
  EXPECT_EQ(file->format(), "llama2c");
  EXPECT_EQ(file->find_meta("tokenizer.ggml.tokens")->as_array().size(), 512u);
}

// Every tensor's bytes of a file read into memory equal those of the same file mapped,
// and they point outside the mapping's file bytes (into the memory read in).
void expect_same_tensors(const WeightFile& mapped, const WeightFile& in_memory) {
  ASSERT_EQ(mapped.tensors().size(), in_memory.tensors().size());
  for (size_t i = 0; i < mapped.tensors().size(); ++i) {
    const TensorView& a = mapped.tensors()[i];
    const TensorView& b = in_memory.tensors()[i];
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.n_bytes, b.n_bytes) << a.name;
    EXPECT_NE(a.data, b.data) << a.name;
    EXPECT_EQ(std::memcmp(a.data, b.data, static_cast<size_t>(a.n_bytes)), 0) << a.name;
  }
}

TEST(OpenWeightFile, GgufReadIntoMemoryHasTheMappedFilesTensors) {
  const std::string path = test::testdata_path("stories260K/stories260K.gguf");
  expect_same_tensors(*open_weight_file(path), *open_weight_file(path, "", FileResidency::kInMemory));
}

TEST(OpenWeightFile, Llama2cReadIntoMemoryHasTheMappedFilesTensors) {
  const std::string path = test::testdata_path("stories260K/stories260K.bin");
  const std::string tokenizer = test::testdata_path("stories260K/tok512.bin");
  expect_same_tensors(*open_weight_file(path, tokenizer), *open_weight_file(path, tokenizer, FileResidency::kInMemory));
}

TEST(OpenWeightFile, TextFileIsNeitherFormat) {
  const std::string text = "This is a plain text file, not a model at all.";
  const std::string path =
      test::write_temp("notes.txt", std::vector<uint8_t>(text.begin(), text.end()));
  test::expect_error(
      [&] { open_weight_file(path); },
      {path + ": not a GGUF file, a llama2.c checkpoint, or a safetensors file or config.json "
              "of a Hugging Face model folder (it starts with 'This', not 'GGUF'; as a llama2.c "
              "checkpoint: implausible header (dim 1936287828"});
}

TEST(OpenWeightFile, EmptyFileIsNeitherFormat) {
  const std::string path = test::write_temp("empty.bin", {});
  test::expect_error(
      [&] { open_weight_file(path); },
      {path + ": not a GGUF file, a llama2.c checkpoint, or a safetensors file or config.json "
              "of a Hugging Face model folder (the file is empty)"});
}

TEST(OpenWeightFile, ShortFileIsNeitherFormat) {
  const std::string path = test::write_temp("short.bin", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  test::expect_error(
      [&] { open_weight_file(path); },
      {"(it starts with '\\x00\\x01\\x02\\x03', not 'GGUF'; as a llama2.c checkpoint: the file "
       "is 10 bytes, shorter than the 28-byte llama2.c header)"});
}

TEST(OpenWeightFile, Llama2cOfWrongSizeSaysExpectedAndFound) {
  std::vector<uint8_t> bytes = test::read_bytes(test::testdata_path("stories260K/stories260K.bin"));
  bytes.push_back(0);
  const std::string path = test::write_temp("long.bin", bytes);
  test::expect_error([&] { open_weight_file(path); },
                     {path + ": not a GGUF file, a llama2.c checkpoint, or a safetensors file",
                      "implies 1056540 bytes, but the file has 1056541"});
}

TEST(OpenWeightFile, GgufVersion1GoesToTheGgufReader) {
  std::vector<uint8_t> bytes =
      test::read_bytes(test::testdata_path("stories260K/stories260K.gguf"));
  test::patch(bytes, 4, uint32_t{1});
  const std::string path = test::write_temp("v1.gguf", bytes);
  test::expect_error([&] { open_weight_file(path); }, {path + ": GGUF version 1 is not supported"});
}

// A model folder with config.json and model.safetensors holding one f32 tensor.
class OpenHfFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    write_hf_folder(folder_.path(), R"({"hidden_size": 2})",
                    {{.name = "w", .dtype = DType::F32, .shape = {2}, .bytes = bytes_}}, 1000);
  }

  void expect_the_folder(const WeightFile& file) {
    EXPECT_EQ(file.format(), "hf");
    EXPECT_EQ(file.path(), folder_.path());
    EXPECT_EQ(file.find_meta("hidden_size")->as_int(), 2);
    ASSERT_NE(file.find_tensor("w"), nullptr);
    EXPECT_EQ(test::decode(DType::F32, file.find_tensor("w")->data, 2),
              (std::vector<float>{0.5f, -4.0f}));
  }

  std::vector<uint8_t> bytes_ = test::encode(DType::F32, {0.5f, -4.0f});
  test::TempFolder folder_{"hf"};
};

TEST_F(OpenHfFolder, DirectorySelectsTheHfFolder) {
  expect_the_folder(*open_weight_file(folder_.path()));
}

TEST_F(OpenHfFolder, ConfigJsonSelectsItsFolder) {
  expect_the_folder(*open_weight_file(folder_.file("config.json")));
}

TEST_F(OpenHfFolder, SafetensorsFileSelectsItsFolder) {
  expect_the_folder(*open_weight_file(folder_.file("model.safetensors")));
}

TEST_F(OpenHfFolder, SafetensorsBytesUnderAnotherNameSelectTheFolder) {
  std::filesystem::copy_file(folder_.file("model.safetensors"), folder_.file("weights.bin"));
  expect_the_folder(*open_weight_file(folder_.file("weights.bin")));
}

TEST_F(OpenHfFolder, BrokenSafetensorsFileGetsTheSafetensorsMessage) {
  test::write_file(folder_.file("model.safetensors"), std::vector<uint8_t>{7, 0, 0});
  test::expect_error_message(
      [&] { open_weight_file(folder_.file("model.safetensors")); },
      folder_.file("model.safetensors") +
          ": truncated file: header length needs 8 bytes but only 3 remain (offset 0)");
}

TEST_F(OpenHfFolder, SafetensorsFileWithoutConfigNamesTheFolder) {
  std::filesystem::remove(folder_.file("config.json"));
  test::expect_error_message(
      [&] { open_weight_file(folder_.file("model.safetensors")); },
      folder_.path() + ": no config.json in the folder (a Hugging Face model folder needs one)");
}

}  // namespace
}  // namespace tessera
