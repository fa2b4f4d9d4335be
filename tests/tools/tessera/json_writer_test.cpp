// The JSON writer of the --json modes: strings are escaped per RFC 8259 and the output
// is always valid UTF-8, whatever bytes the generated text holds (a token may end in
// the middle of a character).
#include <gtest/gtest.h>

#include "tools/tessera/json_writer.h"

namespace tessera::cli {
namespace {

TEST(JsonEscape, KeepsWellFormedCharacters) {
  EXPECT_EQ(json_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(json_escape("\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf"), "\"\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf\"");
}

TEST(JsonEscape, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(json_escape("a\"b\\c\nd\te\rf\x01"), "\"a\\\"b\\\\c\\nd\\te\\rf\\u0001\"");
}

TEST(JsonEscape, ReplacesAPartialCharacterAtTheEndWithOneReplacement) {
  EXPECT_EQ(json_escape("ok \xe2\x82"), "\"ok \\ufffd\"");           // 2 of the 3 bytes of U+20AC
  EXPECT_EQ(json_escape("\xf0\x9f\x98"), "\"\\ufffd\"");             // 3 of the 4 bytes of an emoji
  EXPECT_EQ(json_escape("\xc3"), "\"\\ufffd\"");
}

TEST(JsonEscape, ReplacesAPartialCharacterInsideTheText) {
  EXPECT_EQ(json_escape("\xe2\x82z"), "\"\\ufffdz\"");
  EXPECT_EQ(json_escape("\xe2\x82\xe2\x82\xac"), "\"\\ufffd\xe2\x82\xac\"");
}

// Each byte that cannot start or continue a character is one replacement, as Python's
// bytes.decode("utf-8", "replace") gives.
TEST(JsonEscape, ReplacesOverlongFormsSurrogatesAndBytesBeyondUnicode) {
  EXPECT_EQ(json_escape("\xc0\xaf"), "\"\\ufffd\\ufffd\"");                 // overlong '/'
  EXPECT_EQ(json_escape("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"");      // overlong '/'
  EXPECT_EQ(json_escape("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");      // the surrogate U+D800
  EXPECT_EQ(json_escape("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // U+110000
  EXPECT_EQ(json_escape("\xf5\xff\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
}

TEST(JsonWriter, WritesObjectsArraysAndEscapedText) {
  JsonWriter j;
  j.begin_object().field("text", std::string_view("a\xe2\x82")).field("ids", std::vector<int32_t>{1, 2}).end_object();
  EXPECT_EQ(j.str(), "{\"text\":\"a\\ufffd\",\"ids\":[1,2]}");
}

}  // namespace
}  // namespace tessera::cli
