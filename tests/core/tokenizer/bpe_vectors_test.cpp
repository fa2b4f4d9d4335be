// The byte-level BPE tokenizer against llama.cpp's reference vectors (46 strings per
// vocabulary, encoded without BOS), and the lossless round trip decode(encode(s)) == s.
#include <gtest/gtest.h>

#include <memory>

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"
#include "vocab_vectors.h"

namespace tessera {
namespace {

std::string vocab_path(const std::string& name) {
  return test::testdata_path("tokenizer/ggml-vocab-" + name + ".gguf");
}

BpeTokenizer load_bpe(const std::string& name) {
  return BpeTokenizer::from_weight_file(*GgufFile::open(vocab_path(name)));
}

class BpeVocabVectors : public testing::TestWithParam<std::string> {};

TEST_P(BpeVocabVectors, EncodesAllVectors) {
  const BpeTokenizer tok = load_bpe(GetParam());
  const auto vectors = test::read_vocab_vectors(vocab_path(GetParam()));
  ASSERT_EQ(vectors.size(), 46u);
  for (size_t i = 0; i < vectors.size(); ++i)
    EXPECT_EQ(test::ids_to_string(tok.encode(vectors[i].text, false)), test::ids_to_string(vectors[i].ids))
        << "vector " << i << ": \"" << vectors[i].text << "\"";
}

TEST_P(BpeVocabVectors, DecodesEncodedVectorsBack) {
  const BpeTokenizer tok = load_bpe(GetParam());
  for (const auto& v : test::read_vocab_vectors(vocab_path(GetParam())))
    EXPECT_EQ(tok.decode(tok.encode(v.text, false)), v.text) << "\"" << v.text << "\"";
}

INSTANTIATE_TEST_SUITE_P(Vocabs, BpeVocabVectors,
                         testing::Values("gpt-2", "mpt", "starcoder", "refact", "falcon",
                                         "deepseek-llm", "deepseek-coder"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char c : info.param) name += c == '-' ? '_' : c;
                           return name;
                         });

// SmolLM2 (tokenizer.ggml.pre "smollm"): llama.cpp's 46 strings plus 30 seeded random ones,
// ids from Hugging Face tokenizers (tests/fixtures/tokenizer/README.md).
TEST(BpeSmollm2Vectors, EncodesAllVectorsLikeHfTokenizers) {
  const std::string path = test::source_path("tests/fixtures/tokenizer/ggml-vocab-smollm2.gguf");
  const BpeTokenizer tok = BpeTokenizer::from_weight_file(*GgufFile::open(path));
  const auto vectors = test::read_vocab_vectors(path);
  ASSERT_EQ(vectors.size(), 76u);
  for (size_t i = 0; i < vectors.size(); ++i)
    EXPECT_EQ(test::ids_to_string(tok.encode(vectors[i].text, false)), test::ids_to_string(vectors[i].ids))
        << "vector " << i << ": \"" << vectors[i].text << "\"";
}

TEST(BpeSmollm2Vectors, DecodesEncodedVectorsBack) {
  const std::string path = test::source_path("tests/fixtures/tokenizer/ggml-vocab-smollm2.gguf");
  const BpeTokenizer tok = BpeTokenizer::from_weight_file(*GgufFile::open(path));
  for (const auto& v : test::read_vocab_vectors(path))
    EXPECT_EQ(tok.decode(tok.encode(v.text, false)), v.text) << "\"" << v.text << "\"";
}

}  // namespace
}  // namespace tessera
