// The byte-level BPE tokenizer on tiny hand-written vocabularies: merge order by rank,
// user-defined tokens, pieces of each token type, and the errors of bad input.
#include "core/tokenizer/bpe_tokenizer.h"

#include <gtest/gtest.h>

#include "core/tokenizer/tokenizer.h"
#include "core/util/error.h"
#include "fake_weight_file.h"

namespace tessera {
namespace {

constexpr const char* kSpace = "\xC4\xA0";  // "Ġ", a space in GPT-2's byte alphabet

// Ids: 0 a, 1 b, 2 c, 3 ab, 4 bc, 5 Ġ, 6 Ġa, 7 <|end|> (control), 8 <x> (user-defined).
BpeVocab tiny_vocab(std::vector<std::string> merges) {
  BpeVocab v;
  v.texts = {"a", "b", "c", "ab", "bc", kSpace, std::string(kSpace) + "a", "<|end|>", "<x>"};
  v.types.assign(v.texts.size(), TokenType::Normal);
  v.types[7] = TokenType::Control;
  v.types[8] = TokenType::UserDefined;
  v.merges = std::move(merges);
  v.pre = "gpt-2";
  v.eos_id = 7;
  return v;
}

BpeTokenizer tiny_tokenizer() { return BpeTokenizer(tiny_vocab({"a b", "b c", "Ġ a"})); }

TEST(BpeTokenizer, MergesLowestRankFirst) {
  EXPECT_EQ(BpeTokenizer(tiny_vocab({"a b", "b c"})).encode("abc", false),
            (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(BpeTokenizer(tiny_vocab({"b c", "a b"})).encode("abc", false),
            (std::vector<int32_t>{0, 4}));
}

TEST(BpeTokenizer, MapsSpaceToByteCharacter) {
  EXPECT_EQ(tiny_tokenizer().encode("a a", false), (std::vector<int32_t>{0, 6}));
}

TEST(BpeTokenizer, MatchesUserDefinedTokenVerbatim) {
  EXPECT_EQ(tiny_tokenizer().encode("a<x>b", false), (std::vector<int32_t>{0, 8, 1}));
}

TEST(BpeTokenizer, TreatsControlTokenTextAsText) {
  BpeVocab v = tiny_vocab({"a b"});
  v.texts[7] = "cab";  // a control token whose text the merges can spell
  EXPECT_EQ(BpeTokenizer(v).encode("cab", false), (std::vector<int32_t>{2, 3}));
}

TEST(BpeTokenizer, DropsABytePieceMissingFromVocabularyAsLlamaCppDoes) {
  // 'd' has no token: dropped, never the unknown token (byte-level vocabularies make
  // that their end-of-text).
  EXPECT_EQ(tiny_tokenizer().encode("adb", false), (std::vector<int32_t>{0, 1}));  // a, b: no merge across the gap
  EXPECT_EQ(tiny_tokenizer().encode("d", false), (std::vector<int32_t>{}));
}

TEST(BpeTokenizer, DecodesByteCharactersAndSkipsControl) {
  EXPECT_EQ(tiny_tokenizer().decode({3, 6, 7, 8}), "ab a<x>");
}

TEST(BpeTokenizer, RefusesBosWhenVocabHasNone) {
  try {
    tiny_tokenizer().encode("a", true);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot add BOS while encoding: the vocabulary has no BOS token");
  }
}

TEST(BpeTokenizer, EndsTextAtEos) {
  EXPECT_TRUE(tiny_tokenizer().ends_text(7));
  EXPECT_FALSE(tiny_tokenizer().ends_text(0));
}

TEST(BpeTokenizer, RefusesMalformedMerge) {
  try {
    BpeTokenizer tok(tiny_vocab({"ab"}));
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "tokenizer: merge 0 'ab' is not two tokens separated by a space");
  }
}

TEST(MakeTokenizer, ChoosesBpeForGpt2Model) {
  test::FakeWeightFile file;
  file.set("tokenizer.ggml.model", test::meta_string("gpt2"))
      .set("tokenizer.ggml.pre", test::meta_string("gpt-2"))
      .set("tokenizer.ggml.tokens", test::meta_strings({"a", "b", "ab"}))
      .set("tokenizer.ggml.merges", test::meta_strings({"a b"}));
  const std::unique_ptr<Tokenizer> tok = make_tokenizer(file);
  EXPECT_NE(dynamic_cast<const BpeTokenizer*>(tok.get()), nullptr);
  EXPECT_EQ(tok->encode("ab", false), (std::vector<int32_t>{2}));
  EXPECT_FALSE(tok->add_bos());
}

TEST(MakeTokenizer, RefusesUnknownModel) {
  test::FakeWeightFile file;
  file.set("tokenizer.ggml.model", test::meta_string("bert"));
  try {
    make_tokenizer(file);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "fake.gguf: tokenizer model 'bert' is not supported (Tessera reads 'llama' "
              "SentencePiece and 'gpt2' byte-level BPE)");
  }
}

TEST(MakeTokenizer, RefusesGpt2WithoutMerges) {
  test::FakeWeightFile file;
  file.set("tokenizer.ggml.model", test::meta_string("gpt2"))
      .set("tokenizer.ggml.tokens", test::meta_strings({"a"}));
  try {
    make_tokenizer(file);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "fake.gguf: metadata key 'tokenizer.ggml.merges' is missing: "
                                     "a 'gpt2' tokenizer needs its BPE merges");
  }
}

TEST(MakeTokenizer, RefusesUnknownPreTokenizerNamingFile) {
  test::FakeWeightFile file;
  file.set("tokenizer.ggml.model", test::meta_string("gpt2"))
      .set("tokenizer.ggml.pre", test::meta_string("tekken"))
      .set("tokenizer.ggml.tokens", test::meta_strings({"a"}))
      .set("tokenizer.ggml.merges", test::meta_strings({}));
  try {
    make_tokenizer(file);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("fake.gguf: BPE pre-tokenizer 'tekken' is not supported", 0), 0u)
        << e.what();
  }
}

// Ids 0 a, 1 b, 2 c, 3 bc, 4 abc: "abc" is a token, but the only merge splits it a|bc.
test::FakeWeightFile unmergeable_word_vocab(const std::string& pre) {
  test::FakeWeightFile file;
  file.set("tokenizer.ggml.model", test::meta_string("gpt2"))
      .set("tokenizer.ggml.pre", test::meta_string(pre))
      .set("tokenizer.ggml.tokens", test::meta_strings({"a", "b", "c", "bc", "abc"}))
      .set("tokenizer.ggml.merges", test::meta_strings({"b c"}));
  return file;
}

TEST(MakeTokenizer, Llama3TakesAWordThatIsATokenWhole) {
  EXPECT_EQ(make_tokenizer(unmergeable_word_vocab("llama-bpe"))->encode("abc", false),
            (std::vector<int32_t>{4}));
}

TEST(MakeTokenizer, Qwen2MergesEvenAWordThatIsAToken) {
  EXPECT_EQ(make_tokenizer(unmergeable_word_vocab("qwen2"))->encode("abc", false),
            (std::vector<int32_t>{0, 3}));
}

TEST(MakeTokenizer, Llama3AddsBosUnlessTheFileSaysOtherwise) {
  test::FakeWeightFile file = unmergeable_word_vocab("llama-bpe");
  EXPECT_TRUE(make_tokenizer(file)->add_bos());
  file.set("tokenizer.ggml.add_bos_token", test::meta_bool(false));
  EXPECT_FALSE(make_tokenizer(file)->add_bos());
  EXPECT_FALSE(make_tokenizer(unmergeable_word_vocab("qwen2"))->add_bos());
}

}  // namespace
}  // namespace tessera
