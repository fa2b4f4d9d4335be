// The tokenizer on stories260K, from its GGUF and from the llama2.c checkpoint with
// tok512.bin: the prompt ids and the golden continuation of testdata/stories260K.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "core/tokenizer/spm_tokenizer.h"
#include "core/tokenizer/token_stream.h"
#include "core/weights/weight_file.h"
#include "support/testdata.h"
#include "vocab_vectors.h"

namespace tessera {
namespace {

SpmTokenizer stories_gguf_tokenizer() {
  return SpmTokenizer::from_weight_file(
      *open_weight_file(test::testdata_path("stories260K/stories260K.gguf")));
}

SpmTokenizer stories_llama2c_tokenizer() {
  return SpmTokenizer::from_weight_file(
      *open_weight_file(test::testdata_path("stories260K/stories260K.bin"),
                        test::testdata_path("stories260K/tok512.bin")));
}

struct Golden {
  std::vector<int32_t> ids;  // prompt ids (BOS first) then the generated ids
  std::string text;          // prompt + continuation
};

std::vector<int32_t> parse_ids(const std::string& s) {
  std::vector<int32_t> ids;
  std::istringstream in(s);
  for (int32_t id; in >> id;) ids.push_back(id);
  return ids;
}

// The text between the first `open` after `after` and the next `close`.
std::string text_between(const std::string& md, const std::string& after, const std::string& open,
                         const std::string& close) {
  const size_t anchor = md.find(after);
  const size_t begin = anchor == std::string::npos ? anchor : md.find(open, anchor + after.size());
  const size_t end = begin == std::string::npos ? begin : md.find(close, begin + open.size());
  if (end == std::string::npos)
    throw std::runtime_error("golden.md has no \"" + after + "\" section of the expected layout");
  return md.substr(begin + open.size(), end - begin - open.size());
}

// golden.md: "prompt ids (BOS first): `...`", "generated ids (64):" then "`...`", and the
// text in a ``` block after "text (prompt + continuation".
Golden read_golden() {
  const std::string md = test::read_whole_file(test::testdata_path("stories260K/golden.md"));
  Golden g;
  g.ids = parse_ids(text_between(md, "prompt ids (BOS first):", "`", "`"));
  for (int32_t id : parse_ids(text_between(md, "generated ids (64):", "`", "`")))
    g.ids.push_back(id);
  g.text = text_between(md, "text (prompt + continuation", "```\n", "\n```");
  return g;
}

TEST(StoriesTokenizer, GgufEncodesPromptWithBos) {
  EXPECT_EQ(stories_gguf_tokenizer().encode("Once upon a time", true),
            (std::vector<int32_t>{1, 403, 407, 261, 378}));
}

TEST(StoriesTokenizer, Llama2cTokenizerEncodesPromptWithBos) {
  EXPECT_EQ(stories_llama2c_tokenizer().encode("Once upon a time", true),
            (std::vector<int32_t>{1, 403, 407, 261, 378}));
}

TEST(StoriesTokenizer, GgufAndLlama2cVocabulariesAgree) {
  const Vocab a = stories_gguf_tokenizer().vocab();
  const Vocab b = stories_llama2c_tokenizer().vocab();
  EXPECT_EQ(a.texts, b.texts);
  EXPECT_EQ(a.scores, b.scores);
  EXPECT_EQ(a.types, b.types);
  EXPECT_EQ(a.bos_id, b.bos_id);
  EXPECT_EQ(a.eos_id, b.eos_id);
}

TEST(StoriesTokenizer, GgufDecodesGoldenIdsToGoldenText) {
  const Golden golden = read_golden();
  ASSERT_EQ(golden.ids.size(), 69u);
  ASSERT_EQ(golden.text.substr(0, 17), "Once upon a time,");
  EXPECT_EQ(stories_gguf_tokenizer().decode(golden.ids), golden.text);
}

TEST(StoriesTokenizer, Llama2cTokenizerDecodesGoldenIdsToGoldenText) {
  const Golden golden = read_golden();
  EXPECT_EQ(stories_llama2c_tokenizer().decode(golden.ids), golden.text);
}

TEST(StoriesTokenizer, StreamingGoldenIdsGivesGoldenText) {
  const SpmTokenizer tok = stories_gguf_tokenizer();
  const Golden golden = read_golden();
  TokenStreamDecoder stream(tok);
  std::string text;
  for (int32_t id : golden.ids) text += stream.push(id);
  text += stream.finish();
  EXPECT_EQ(text, golden.text);
}

TEST(StoriesTokenizer, EncodesGoldenTextBackToGoldenIds) {
  // Greedy generation need not produce the canonical tokenization, but this story does.
  const Golden golden = read_golden();
  EXPECT_EQ(stories_gguf_tokenizer().encode(golden.text, true), golden.ids);
}

}  // namespace
}  // namespace tessera
