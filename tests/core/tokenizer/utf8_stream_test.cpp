// Tests of UTF-8 character lengths, the hold-back stream buffer, and streaming
// detokenization of a character whose bytes arrive as separate byte tokens.
#include "core/tokenizer/utf8.h"

#include <gtest/gtest.h>

#include "core/tokenizer/spm_tokenizer.h"
#include "core/tokenizer/token_stream.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"

namespace tessera {
namespace {

TEST(Utf8, SequenceLengthFollowsLeadByte) {
  EXPECT_EQ(utf8_sequence_length('a'), 1u);
  EXPECT_EQ(utf8_sequence_length(0x80), 1u);  // stray continuation byte
  EXPECT_EQ(utf8_sequence_length(0xC3), 2u);
  EXPECT_EQ(utf8_sequence_length(0xE2), 3u);
  EXPECT_EQ(utf8_sequence_length(0xF0), 4u);
}

TEST(Utf8StreamBuffer, PassesCompleteTextThrough) {
  Utf8StreamBuffer buf;
  EXPECT_EQ(buf.push("h\xC3\xA9!"), "h\xC3\xA9!");
  EXPECT_EQ(buf.pending(), 0u);
}

TEST(Utf8StreamBuffer, HoldsBackCharacterUntilItsLastByte) {
  Utf8StreamBuffer buf;  // U+1F999 🦙 = F0 9F A6 99, one byte per push
  EXPECT_EQ(buf.push("a\xF0"), "a");
  EXPECT_EQ(buf.push("\x9F"), "");
  EXPECT_EQ(buf.push("\xA6"), "");
  EXPECT_EQ(buf.pending(), 3u);
  EXPECT_EQ(buf.push("\x99"), "\xF0\x9F\xA6\x99");
  EXPECT_EQ(buf.pending(), 0u);
}

TEST(Utf8StreamBuffer, FlushReturnsUnfinishedCharacter) {
  Utf8StreamBuffer buf;
  EXPECT_EQ(buf.push("x\xE2\x96"), "x");
  EXPECT_EQ(buf.flush(), "\xE2\x96");
  EXPECT_EQ(buf.pending(), 0u);
}

TEST(Utf8StreamBuffer, PassesStrayContinuationBytesThrough) {
  Utf8StreamBuffer buf;
  EXPECT_EQ(buf.push("\x80\x81"), "\x80\x81");
}

TEST(Utf8StreamBuffer, ReleasesBrokenSequenceWhenNextCharacterStarts) {
  Utf8StreamBuffer buf;  // E2 expects two continuation bytes but gets 'b'
  EXPECT_EQ(buf.push("\xE2"), "");
  EXPECT_EQ(buf.push("b"), "\xE2" "b");
}

TEST(TokenStreamDecoder, EmitsSplitCharacterOnceComplete) {
  const SpmTokenizer tok = SpmTokenizer::from_weight_file(
      *GgufFile::open(test::testdata_path("tokenizer/ggml-vocab-llama-spm.gguf")));
  // " this is 🦙.cpp" -> ▁ ▁this ▁is ▁ <0xF0> <0x9F> <0xA6> <0x99> . cpp (llama.cpp's ids)
  const std::vector<int32_t> ids = {29871, 445, 338, 29871, 243, 162, 169, 156, 29889, 8223};
  TokenStreamDecoder stream(tok);
  std::vector<std::string> out;
  for (int32_t id : ids) out.push_back(stream.push(id));
  EXPECT_EQ(out, (std::vector<std::string>{"", " this", " is", " ", "", "", "", "\xF0\x9F\xA6\x99",
                                           ".", "cpp"}));
  EXPECT_EQ(stream.finish(), "");
}

TEST(TokenStreamDecoder, DropsLeadingSpaceAfterPromptBos) {
  const SpmTokenizer tok = SpmTokenizer::from_weight_file(
      *GgufFile::open(test::testdata_path("tokenizer/ggml-vocab-llama-spm.gguf")));
  TokenStreamDecoder stream(tok, tok.bos());
  EXPECT_EQ(stream.push(15043), "Hello");  // ▁Hello
  EXPECT_EQ(stream.push(3186), " world");  // ▁world
}

}  // namespace
}  // namespace tessera
