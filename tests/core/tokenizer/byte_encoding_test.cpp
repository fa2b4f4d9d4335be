// GPT-2's byte alphabet: known characters for space and newline, and an exact round
// trip over all 256 byte values.
#include "core/tokenizer/byte_encoding.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(ByteEncoding, MapsSpaceAndNewlineToGpt2Characters) {
  EXPECT_EQ(bytes_to_bpe_chars(" \n"), "\xC4\xA0\xC4\x8A");  // "ĠĊ"
}

TEST(ByteEncoding, KeepsPrintableAscii) { EXPECT_EQ(bytes_to_bpe_chars("Ab~"), "Ab~"); }

TEST(ByteEncoding, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(bpe_chars_to_bytes(bytes_to_bpe_chars(all)), all);
}

TEST(ByteEncoding, CopiesCharacterOutsideAlphabet) {
  EXPECT_EQ(bpe_chars_to_bytes("a\xE2\x82\xAC"), "a\xE2\x82\xAC");  // "a€": € is unmapped
}

}  // namespace
}  // namespace tessera
