// Tests of reading the tokenizer vocabulary from metadata: defaults, inferred types,
// and the refusal of unsupported or inconsistent vocabularies with key-naming errors.
#include "core/tokenizer/vocab.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"

namespace tessera {
namespace {

using test::fake_llama_vocab;

// Expects vocab_from_metadata(file) to throw a tessera::Error whose message is `message`.
void expect_vocab_error(const WeightFile& file, const std::string& message) {
  try {
    vocab_from_metadata(file);
    FAIL() << "expected tessera::Error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

test::FakeWeightFile three_token_vocab() {
  return fake_llama_vocab({"<unk>", "<s>", "a"}, {0.0, 0.0, -1.0}, {2, 3, 1});
}

TEST(Vocab, RefusesGpt2TokenizerModel) {
  const std::string path = test::testdata_path("tokenizer/ggml-vocab-gpt-2.gguf");
  auto file = GgufFile::open(path);
  expect_vocab_error(*file, path + ": tokenizer model 'gpt2' is not a SentencePiece "
                                   "vocabulary (expected 'llama')");
}

TEST(Vocab, RefusesFileWithoutTokenizerModel) {
  auto file = three_token_vocab();
  file.erase("tokenizer.ggml.model");
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.model' is missing: the file "
                           "has no tokenizer");
}

TEST(Vocab, RefusesFileWithoutTokens) {
  auto file = three_token_vocab();
  file.erase("tokenizer.ggml.tokens");
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.tokens' is missing: the file "
                           "has no tokenizer vocabulary");
}

TEST(Vocab, RefusesScoresOfDifferentLength) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.scores", test::meta_floats({0.0, 0.0}));
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.scores' has 2 entries but "
                           "tokenizer.ggml.tokens has 3");
}

TEST(Vocab, RefusesANanScore) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.scores", test::meta_floats({0.0, 0.0, std::nan("")}));
  expect_vocab_error(file, "fake.gguf: the score of token 2 ('a') is NaN");
}

TEST(Vocab, RefusesAPositiveInfiniteScoreButKeepsNegativeInfinity) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.scores", test::meta_floats({-INFINITY, INFINITY, 0.0}));
  expect_vocab_error(file, "fake.gguf: the score of token 1 ('<s>') is +inf");
  file.set("tokenizer.ggml.scores", test::meta_floats({-INFINITY, 0.0, 0.0}));
  EXPECT_EQ(vocab_from_metadata(file).scores[0], -INFINITY);
}

TEST(Vocab, RefusesTokenTypesOfDifferentLength) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.token_type", test::meta_ints({2, 3, 1, 1}));
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.token_type' has 4 entries but "
                           "tokenizer.ggml.tokens has 3");
}

TEST(Vocab, RefusesUnknownTokenTypeCode) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.token_type", test::meta_ints({2, 3, 9}));
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.token_type' entry 2 has "
                           "unknown token type 9 (expected 1..6)");
}

TEST(Vocab, RefusesBosIdOutOfRange) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.bos_token_id", test::meta_u32(7));
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.bos_token_id' is 7, out of "
                           "range for a vocabulary of 3 tokens");
}

TEST(Vocab, RefusesNonStringToken) {
  auto file = three_token_vocab();
  MetaArray tokens{test::meta_string("<unk>"), test::meta_string("<s>"), MetaValue{int64_t{5}, 5}};
  file.set("tokenizer.ggml.tokens", MetaValue{tokens, 9});
  expect_vocab_error(file, "fake.gguf: metadata key 'tokenizer.ggml.tokens' entry 2 is not a string");
}

TEST(Vocab, TreatsUnsetIdAsNone) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.eos_token_id", test::meta_u32(0xFFFFFFFFu));
  EXPECT_EQ(vocab_from_metadata(file).eos_id, -1);
}

TEST(Vocab, AppliesDefaultsForAbsentKeys) {
  const Vocab v = vocab_from_metadata(three_token_vocab());
  EXPECT_EQ(v.bos_id, -1);
  EXPECT_EQ(v.eos_id, -1);
  EXPECT_EQ(v.unk_id, -1);
  EXPECT_TRUE(v.add_bos);
  EXPECT_FALSE(v.add_eos);
  EXPECT_TRUE(v.add_space_prefix);
}

TEST(Vocab, ReadsFlagsWhenPresent) {
  auto file = three_token_vocab();
  file.set("tokenizer.ggml.add_bos_token", test::meta_bool(false))
      .set("tokenizer.ggml.add_space_prefix", test::meta_bool(false));
  const Vocab v = vocab_from_metadata(file);
  EXPECT_FALSE(v.add_bos);
  EXPECT_FALSE(v.add_space_prefix);
}

TEST(Vocab, InfersTokenTypesWhenAbsent) {
  auto file = fake_llama_vocab({"<unk>", "<s>", "</s>", "<0x41>", "a"}, {0, 0, 0, 0, -1}, {});
  file.erase("tokenizer.ggml.token_type")
      .set("tokenizer.ggml.unknown_token_id", test::meta_u32(0))
      .set("tokenizer.ggml.bos_token_id", test::meta_u32(1))
      .set("tokenizer.ggml.eos_token_id", test::meta_u32(2));
  const Vocab v = vocab_from_metadata(file);
  EXPECT_EQ(v.types, (std::vector<TokenType>{TokenType::Unknown, TokenType::Control,
                                             TokenType::Control, TokenType::Byte,
                                             TokenType::Normal}));
}

TEST(Vocab, ReadsStories260KGguf) {
  auto file = GgufFile::open(test::testdata_path("stories260K/stories260K.gguf"));
  const Vocab v = vocab_from_metadata(*file);
  EXPECT_EQ(v.size(), 512);
  EXPECT_EQ(v.bos_id, 1);
  EXPECT_EQ(v.eos_id, 2);
  EXPECT_EQ(v.unk_id, 0);
  EXPECT_TRUE(v.add_bos);  // the key is absent: the SPM default
  EXPECT_EQ(v.texts[13], "<0x0A>");
  EXPECT_EQ(v.types[13], TokenType::Byte);
  EXPECT_EQ(v.texts[259], "\xE2\x96\x81t");  // "▁t"
  EXPECT_FLOAT_EQ(v.scores[260], -1.0f);
}

TEST(Vocab, ValidateRefusesMismatchedHandBuiltVocab) {
  Vocab v;
  v.texts = {"a", "b"};
  v.scores = {0.0f, 0.0f};
  v.types = {TokenType::Normal};
  try {
    validate_vocab(v, "hand-built");
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "hand-built: vocabulary has 1 token types for 2 tokens");
  }
}

}  // namespace
}  // namespace tessera
