// The BPE pre-tokenizers cut text into the words llama.cpp's regexes produce; each
// test pins one rule with a short input and its exact words.
#include "core/tokenizer/pre_tokenizer.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using Words = std::vector<std::string>;

Words words(PreTokenizer kind, std::string_view text) {
  Words out;
  for (std::string_view w : pre_tokenize(kind, text)) out.emplace_back(w);
  return out;
}

TEST(PreTokenizer, Gpt2KeepsOneLeadingSpaceWithEachWord) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "Hello world"), (Words{"Hello", " world"}));
}

TEST(PreTokenizer, Gpt2SplitsContractions) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "we'll it's"), (Words{"we", "'ll", " it", "'s"}));
}

TEST(PreTokenizer, Gpt2LeavesLastSpaceOfRunForNextWord) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "a   b"), (Words{"a", "  ", " b"}));
}

TEST(PreTokenizer, Gpt2KeepsTrailingSpacesTogether) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "a\n\n  "), (Words{"a", "\n\n  "}));
}

TEST(PreTokenizer, Gpt2SeparatesLettersNumbersAndSymbols) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "abc123!?"), (Words{"abc", "123", "!?"}));
}

TEST(PreTokenizer, Gpt2TreatsCyrillicAsLetters) {
  EXPECT_EQ(words(PreTokenizer::Gpt2, "\xD0\xBC\xD0\xB8\xD1\x80 1"),
            (Words{"\xD0\xBC\xD0\xB8\xD1\x80", " 1"}));  // "мир 1"
}

TEST(PreTokenizer, DigitsApartMakesEachDigitAWord) {
  EXPECT_EQ(words(PreTokenizer::DigitsApart, "x 123"), (Words{"x", " ", "1", "2", "3"}));
}

TEST(PreTokenizer, FalconGroupsDigitsInThrees) {
  EXPECT_EQ(words(PreTokenizer::Falcon, "1234567"), (Words{"123", "456", "7"}));
}

TEST(PreTokenizer, FalconSplitsPunctuationRunsFirst) {
  EXPECT_EQ(words(PreTokenizer::Falcon, "a+=b"), (Words{"a", "+=", "b"}));
}

TEST(PreTokenizer, DeepseekCoderSplitsLineBreaksAndDigits) {
  EXPECT_EQ(words(PreTokenizer::DeepseekCoder, "ab\n12"), (Words{"ab", "\n", "1", "2"}));
}

TEST(PreTokenizer, DeepseekLlmKeepsSpaceBeforeWord) {
  EXPECT_EQ(words(PreTokenizer::DeepseekLlm, "Hi there 42"),
            (Words{"Hi", " there", " ", "42"}));
}

TEST(PreTokenizer, KeepsInvalidUtf8BytesInTheirWord) {
  const std::vector<std::string_view> w = pre_tokenize(PreTokenizer::Gpt2, "a\xFF" "b");
  std::string joined;
  for (std::string_view s : w) joined += s;
  EXPECT_EQ(joined, "a\xFF" "b");
  EXPECT_EQ(w.size(), 3u);
}

TEST(PreTokenizer, EmptyTextHasNoWords) {
  EXPECT_TRUE(pre_tokenize(PreTokenizer::Gpt2, "").empty());
}

TEST(PreTokenizer, NamesMapToRules) {
  EXPECT_EQ(pre_tokenizer_from_name("gpt-2"), PreTokenizer::Gpt2);
  EXPECT_EQ(pre_tokenizer_from_name("mpt"), PreTokenizer::Gpt2);
  EXPECT_EQ(pre_tokenizer_from_name("refact"), PreTokenizer::DigitsApart);
  EXPECT_EQ(pre_tokenizer_from_name(""), PreTokenizer::Default);
}

TEST(PreTokenizer, RefusesUnknownName) {
  try {
    pre_tokenizer_from_name("llama-bpe");
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "BPE pre-tokenizer 'llama-bpe' is not supported (supported: codeshell, command-r, "
              "deepseek-coder, deepseek-llm, default, exaone, falcon, gpt-2, jais, mpt, olmo, "
              "refact, smollm, starcoder)");
  }
}

}  // namespace
}  // namespace tessera
