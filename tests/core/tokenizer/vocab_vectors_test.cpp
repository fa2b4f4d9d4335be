// The SPM tokenizer against llama.cpp's reference vectors (46 strings per vocabulary,
// encoded without BOS), and the lossless round trip decode(encode(s)) == s over them.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/tokenizer/spm_tokenizer.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"
#include "vocab_vectors.h"

namespace tessera {
namespace {

SpmTokenizer load_tokenizer(const std::string& gguf_path) {
  return SpmTokenizer::from_weight_file(*GgufFile::open(gguf_path));
}

// Checks every vector of a vocabulary file; a failure names the vector and its string.
void expect_all_vectors_match(const std::string& vocab_file) {
  const std::string path = test::testdata_path("tokenizer/" + vocab_file);
  const SpmTokenizer tok = load_tokenizer(path);
  const auto vectors = test::read_vocab_vectors(path);
  ASSERT_EQ(vectors.size(), 46u);
  for (size_t i = 0; i < vectors.size(); ++i)
    EXPECT_EQ(test::ids_to_string(tok.encode(vectors[i].text, false)), test::ids_to_string(vectors[i].ids))
        << "vector " << i << " of " << vocab_file << ": \"" << vectors[i].text << "\"";
}

void expect_all_vectors_round_trip(const std::string& vocab_file) {
  const std::string path = test::testdata_path("tokenizer/" + vocab_file);
  const SpmTokenizer tok = load_tokenizer(path);
  for (const auto& v : test::read_vocab_vectors(path)) {
    EXPECT_EQ(tok.decode(tok.encode(v.text, false)), v.text) << "without BOS: \"" << v.text << "\"";
    EXPECT_EQ(tok.decode(tok.encode(v.text, true)), v.text) << "with BOS: \"" << v.text << "\"";
  }
}

TEST(SpmVocabVectors, LlamaSpmEncodesAllVectors) {
  expect_all_vectors_match("ggml-vocab-llama-spm.gguf");
}

TEST(SpmVocabVectors, Phi3EncodesAllVectors) { expect_all_vectors_match("ggml-vocab-phi-3.gguf"); }

TEST(SpmVocabVectors, LlamaSpmDecodesEncodedVectorsBack) {
  expect_all_vectors_round_trip("ggml-vocab-llama-spm.gguf");
}

TEST(SpmVocabVectors, Phi3DecodesEncodedVectorsBack) {
  expect_all_vectors_round_trip("ggml-vocab-phi-3.gguf");
}

TEST(SpmVocabVectors, LlamaSpmRoundTripsLongText) {
  // Thousands of characters through the merge queue in one fragment.
  const std::string path = test::testdata_path("tokenizer/ggml-vocab-llama-spm.gguf");
  const SpmTokenizer tok = load_tokenizer(path);
  const std::string unit = test::read_vocab_vectors(path).back().text;
  std::string text;
  for (int i = 0; i < 200; ++i) text += unit;
  const std::vector<int32_t> ids = tok.encode(text, false);
  EXPECT_EQ(tok.decode(ids), text);
  // The repeated unit is tokenized the same way each time after the first.
  const std::vector<int32_t> once = tok.encode(unit, false);
  EXPECT_EQ(std::vector<int32_t>(ids.begin(), ids.begin() + 10),
            std::vector<int32_t>(once.begin(), once.begin() + 10));
}

TEST(SpmVocabVectors, Phi3MatchesUserDefinedEndOfTextMarker) {
  // In the phi-3 vocabulary "</s>" (id 2) is user-defined: matched verbatim, and the text
  // after it gets a dummy prefix, as llama.cpp does.
  const SpmTokenizer tok = load_tokenizer(test::testdata_path("tokenizer/ggml-vocab-phi-3.gguf"));
  EXPECT_EQ(tok.encode("Hello</s>world", false), (std::vector<int32_t>{15043, 2, 3186}));
}

TEST(SpmVocabVectors, LlamaSpmTreatsControlTextAsText) {
  const SpmTokenizer tok =
      load_tokenizer(test::testdata_path("tokenizer/ggml-vocab-llama-spm.gguf"));
  const std::vector<int32_t> ids = tok.encode("<s>", false);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), tok.bos()), 0);
  EXPECT_EQ(tok.decode(ids), "<s>");
}

}  // namespace
}  // namespace tessera
