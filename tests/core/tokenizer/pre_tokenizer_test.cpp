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

// Llama 3's and Qwen2's patterns, one rule per row; the words are those Hugging Face's
// tokenizers gives with the models' Split regex.
struct SplitCase {
  const char* rule;
  std::string text;
  Words llama3;
  Words qwen2;
};

const SplitCase kLlama3StyleCases[] = {
    {"contractions in any case", "we'RE x'Ll 'tis",
     {"we", "'RE", " x", "'Ll", " '", "tis"}, {"we", "'RE", " x", "'Ll", " '", "tis"}},
    {"long s folds to s", "x'\xC5\xBF" "x", {"x", "'\xC5\xBF", "x"}, {"x", "'\xC5\xBF", "x"}},
    {"any non-letter leads a word", "\tHello (world",
     {"\tHello", " (", "world"}, {"\tHello", " (", "world"}},
    {"two symbols do not lead a word", "!!abc", {"!!", "abc"}, {"!!", "abc"}},
    {"white space up to the last line break", "hi\r\n\r\n  there  ",
     {"hi", "\r\n\r\n", " ", " there", "  "}, {"hi", "\r\n\r\n", " ", " there", "  "}},
    {"a line break alone", "a\n  b", {"a", "\n", " ", " b"}, {"a", "\n", " ", " b"}},
    {"line breaks follow symbols", " !!\n\nabc", {" !!\n\n", "abc"}, {" !!\n\n", "abc"}},
    {"only a space leads symbols", "a \t!", {"a", " ", "\t", "!"}, {"a", " ", "\t", "!"}},
    {"ideographic space leads a word", "a  \xE3\x80\x80" "b",
     {"a", "  ", "\xE3\x80\x80" "b"}, {"a", "  ", "\xE3\x80\x80" "b"}},
    {"a combining mark leads a word", "e\xCC\x81" "x", {"e", "\xCC\x81" "x"}, {"e", "\xCC\x81" "x"}},
    {"digits in threes or one by one", "123456 7",
     {"123", "456", " ", "7"}, {"1", "2", "3", "4", "5", "6", " ", "7"}},
};

TEST(PreTokenizer, Llama3SplitsLikeItsRegex) {
  for (const SplitCase& c : kLlama3StyleCases)
    EXPECT_EQ(words(PreTokenizer::Llama3, c.text), c.llama3) << c.rule;
}

TEST(PreTokenizer, Qwen2SplitsLikeItsRegex) {
  for (const SplitCase& c : kLlama3StyleCases)
    EXPECT_EQ(words(PreTokenizer::Qwen2, c.text), c.qwen2) << c.rule;
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

TEST(PreTokenizer, NamesLlama3RulesAsLlamaCppDoes) {
  for (const char* name : {"llama-bpe", "llama3", "llama-v3", "falcon3", "falcon-h1", "pixtral",
                           "midm-2.0", "lfm2", "jina-v5-nano"}) {
    const PreTokenizerSpec spec = pre_tokenizer_spec(name);
    EXPECT_EQ(spec.kind, PreTokenizer::Llama3) << name;
    EXPECT_TRUE(spec.ignore_merges) << name;
    EXPECT_TRUE(spec.add_bos) << name;
  }
  for (const char* name : {"dbrx", "smaug-bpe"}) {
    EXPECT_EQ(pre_tokenizer_spec(name).kind, PreTokenizer::Llama3) << name;
    EXPECT_FALSE(pre_tokenizer_spec(name).ignore_merges) << name;
  }
}

TEST(PreTokenizer, NamesQwen2RulesAsLlamaCppDoes) {
  for (const char* name : {"qwen2", "deepseek-r1-qwen", "stablelm2", "megrez", "kormo", "f2llmv2",
                           "hunyuan", "solar-open"}) {
    const PreTokenizerSpec spec = pre_tokenizer_spec(name);
    EXPECT_EQ(spec.kind, PreTokenizer::Qwen2) << name;
    EXPECT_FALSE(spec.ignore_merges) << name;
    EXPECT_FALSE(spec.add_bos) << name;
  }
  EXPECT_FALSE(pre_tokenizer_spec("smollm").ignore_merges);
}

TEST(PreTokenizer, RefusesUnknownName) {
  try {
    pre_tokenizer_from_name("tekken");
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "BPE pre-tokenizer 'tekken' is not supported (supported: codeshell, command-r, "
              "dbrx, deepseek-coder, deepseek-llm, deepseek-r1-qwen, default, exaone, f2llmv2, "
              "falcon, falcon-h1, falcon3, gpt-2, hunyuan, jais, jina-v5-nano, kormo, lfm2, "
              "llama-bpe, llama-v3, llama3, megrez, midm-2.0, mpt, olmo, pixtral, qwen2, refact, "
              "smaug-bpe, smollm, solar-open, stablelm2, starcoder)");
  }
}

}  // namespace
}  // namespace tessera
