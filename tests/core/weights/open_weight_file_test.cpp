// open_weight_file(): picks the reader from the first bytes and explains why a file
// is neither format.
#include <gtest/gtest.h>

#include "core/weights/weight_file.h"
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

TEST(OpenWeightFile, TextFileIsNeitherFormat) {
  const std::string text = "This is a plain text file, not a model at all.";
  const std::string path =
      test::write_temp("notes.txt", std::vector<uint8_t>(text.begin(), text.end()));
  test::expect_error(
      [&] { open_weight_file(path); },
      {path + ": not a GGUF file and not a llama2.c checkpoint (it starts with 'This', not "
              "'GGUF'; as a llama2.c checkpoint: implausible header (dim 1936287828"});
}

TEST(OpenWeightFile, EmptyFileIsNeitherFormat) {
  const std::string path = test::write_temp("empty.bin", {});
  test::expect_error(
      [&] { open_weight_file(path); },
      {path + ": not a GGUF file and not a llama2.c checkpoint (the file is empty)"});
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
                     {path + ": not a GGUF file and not a llama2.c checkpoint",
                      "implies 1056540 bytes, but the file has 1056541"});
}

TEST(OpenWeightFile, GgufVersion1GoesToTheGgufReader) {
  std::vector<uint8_t> bytes =
      test::read_bytes(test::testdata_path("stories260K/stories260K.gguf"));
  test::patch(bytes, 4, uint32_t{1});
  const std::string path = test::write_temp("v1.gguf", bytes);
  test::expect_error([&] { open_weight_file(path); }, {path + ": GGUF version 1 is not supported"});
}

}  // namespace
}  // namespace tessera
