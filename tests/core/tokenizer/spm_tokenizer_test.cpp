// Tests of the SPM encoder and decoder on a tiny hand-written vocabulary, where every
// merge can be predicted by hand: merge order, ties, byte fallback, user-defined
// tokens, BOS handling, and the rules of rendering pieces.
#include "core/tokenizer/spm_tokenizer.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

constexpr const char* kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// ids:        0        1      2       3         4         5       6    7    8     9
//            <unk>    <s>    </s>   <0xC3>    <0xA9>      ▁       a    b    ab    ▁a
//             10      11       12     13
//             ba    <|x|>     ▁ab     aa
Vocab tiny_vocab(float score_ab, float score_ba) {
  Vocab v;
  const std::string s = kSpace;
  v.texts = {"<unk>", "<s>", "</s>", "<0xC3>", "<0xA9>", s, "a", "b", "ab", s + "a", "ba",
             "<|x|>", s + "ab", "aa"};
  v.scores = {0, 0, 0, 0, 0, -1, -2, -3, score_ab, -5, score_ba, 0, -6, -7};
  using T = TokenType;
  v.types = {T::Unknown, T::Control, T::Control, T::Byte,   T::Byte,        T::Normal, T::Normal,
             T::Normal,  T::Normal,  T::Normal,  T::Normal, T::UserDefined, T::Normal, T::Normal};
  v.bos_id = 1;
  v.eos_id = 2;
  v.unk_id = 0;
  return v;
}

SpmTokenizer tiny_tokenizer() { return SpmTokenizer(tiny_vocab(-4, -8)); }

TEST(SpmTokenizer, MergesHighestScoringPairFirst) {
  // "▁aba": ab (-4) beats ▁a (-5) and ba (-8), then ▁+ab gives ▁ab.
  EXPECT_EQ(SpmTokenizer(tiny_vocab(-4, -8)).encode("aba", false), (std::vector<int32_t>{12, 6}));
  // With ba (-3.5) the best pair, ▁a then merges and ▁a+ba is no token.
  EXPECT_EQ(SpmTokenizer(tiny_vocab(-4, -3.5)).encode("aba", false), (std::vector<int32_t>{9, 10}));
}

TEST(SpmTokenizer, MergesLeftmostPairOnEqualScores) {
  Vocab v = tiny_vocab(-4, -8);
  v.add_space_prefix = false;
  EXPECT_EQ(SpmTokenizer(v).encode("aaa", false), (std::vector<int32_t>{13, 6}));
}

TEST(SpmTokenizer, AddsDummyPrefixSpace) {
  EXPECT_EQ(tiny_tokenizer().encode("a", false), (std::vector<int32_t>{9}));
}

TEST(SpmTokenizer, OmitsDummyPrefixWhenVocabSaysSo) {
  Vocab v = tiny_vocab(-4, -8);
  v.add_space_prefix = false;
  EXPECT_EQ(SpmTokenizer(v).encode("a", false), (std::vector<int32_t>{6}));
}

TEST(SpmTokenizer, EscapesSpacesInsideText) {
  // "a b" -> "▁a▁b": ▁a merges, ▁b is no token.
  EXPECT_EQ(tiny_tokenizer().encode("a b", false), (std::vector<int32_t>{9, 5, 7}));
}

TEST(SpmTokenizer, FallsBackToByteTokensForUnknownCharacter) {
  EXPECT_EQ(tiny_tokenizer().encode("\xC3\xA9", false), (std::vector<int32_t>{5, 3, 4}));  // é
}

TEST(SpmTokenizer, FallsBackToUnknownTokenForByteWithoutToken) {
  EXPECT_EQ(tiny_tokenizer().encode("\xC3\xBC", false), (std::vector<int32_t>{5, 3, 0}));  // ü
}

TEST(SpmTokenizer, RefusesByteWithoutFallbackToken) {
  Vocab v = tiny_vocab(-4, -8);
  v.types[0] = TokenType::Normal;
  v.unk_id = -1;
  try {
    SpmTokenizer(v).encode("\xC3\xBC", false);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot encode byte 0xBC at offset 4 of the escaped text: the vocabulary has no byte "
              "token <0xBC> and no unknown token");
  }
}

TEST(SpmTokenizer, MatchesUserDefinedTokenVerbatim) {
  // The fragment after a user-defined token gets its own dummy prefix, as in llama.cpp.
  EXPECT_EQ(tiny_tokenizer().encode("a<|x|>b", false), (std::vector<int32_t>{9, 11, 5, 7}));
}

TEST(SpmTokenizer, TreatsControlTokenTextAsPlainText) {
  const std::vector<int32_t> ids = tiny_tokenizer().encode("<s>", false);
  EXPECT_EQ(ids, (std::vector<int32_t>{5, 0, 0, 0}));  // ▁ then <, s, > as unknown bytes
}

TEST(SpmTokenizer, PrependsBosWhenAsked) {
  EXPECT_EQ(tiny_tokenizer().encode("a", true), (std::vector<int32_t>{1, 9}));
}

TEST(SpmTokenizer, EncodesEmptyTextToNothing) {
  EXPECT_TRUE(tiny_tokenizer().encode("", false).empty());
  EXPECT_EQ(tiny_tokenizer().encode("", true), (std::vector<int32_t>{1}));
}

TEST(SpmTokenizer, RefusesBosWhenVocabHasNone) {
  Vocab v = tiny_vocab(-4, -8);
  v.bos_id = -1;
  try {
    SpmTokenizer(v).encode("a", true);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot add BOS while encoding: the vocabulary has no BOS token");
  }
}

TEST(SpmTokenizer, DecodeDropsDummyPrefixAtStart) {
  EXPECT_EQ(tiny_tokenizer().decode({9, 5, 7}), "a b");
}

TEST(SpmTokenizer, DecodeDropsLeadingSpaceAfterBos) {
  EXPECT_EQ(tiny_tokenizer().decode({1, 9, 9}), "a a");
}

TEST(SpmTokenizer, PieceKeepsLeadingSpaceAfterOrdinaryToken) {
  EXPECT_EQ(tiny_tokenizer().token_to_piece(9, 6), " a");
}

TEST(SpmTokenizer, PieceOfControlTokenIsEmpty) {
  EXPECT_EQ(tiny_tokenizer().token_to_piece(2, 6), "");
  EXPECT_EQ(tiny_tokenizer().decode({1, 6, 2}), "a");
}

TEST(SpmTokenizer, PieceOfByteTokenIsRawByte) {
  EXPECT_EQ(tiny_tokenizer().token_to_piece(3, 6), "\xC3");
  EXPECT_EQ(tiny_tokenizer().decode({5, 3, 4}), "\xC3\xA9");
}

TEST(SpmTokenizer, PieceOfUnknownTokenIsPlaceholder) {
  EXPECT_EQ(tiny_tokenizer().token_to_piece(0, 6), "\xE2\x96\x85");  // U+2585
}

TEST(SpmTokenizer, PieceOfUserDefinedTokenIsItsText) {
  EXPECT_EQ(tiny_tokenizer().token_to_piece(11, 6), "<|x|>");
}

TEST(SpmTokenizer, DecodeRefusesIdOutOfRange) {
  try {
    tiny_tokenizer().decode({6, 99});
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot decode token id 99 at position 1: the vocabulary has 14 tokens");
  }
}

TEST(SpmTokenizer, TokenTextRefusesIdOutOfRange) {
  try {
    tiny_tokenizer().token_text(-2);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "token_text: token id -2 is out of range for a vocabulary of 14 tokens");
  }
}

TEST(SpmTokenizer, ReportsVocabularyFacts) {
  const SpmTokenizer tok = tiny_tokenizer();
  EXPECT_EQ(tok.n_vocab(), 14);
  EXPECT_EQ(tok.bos(), 1);
  EXPECT_EQ(tok.eos(), 2);
  EXPECT_TRUE(tok.is_control(2));
  EXPECT_FALSE(tok.is_control(6));
  EXPECT_FALSE(tok.is_control(14));
  EXPECT_EQ(tok.token_text(12), std::string(kSpace) + "ab");
  EXPECT_EQ(tok.find_token("ba"), 10);
  EXPECT_EQ(tok.find_token("zz"), -1);
}

TEST(SpmTokenizer, RefusesVocabWithMismatchedLengths) {
  Vocab v = tiny_vocab(-4, -8);
  v.scores.pop_back();
  try {
    SpmTokenizer tok(v);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "tokenizer: vocabulary has 13 scores for 14 tokens");
  }
}

}  // namespace
}  // namespace tessera
