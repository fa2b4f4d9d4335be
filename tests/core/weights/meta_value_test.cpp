// MetaValue accessors (widening, refusals with messages) and its display form.
#include <gtest/gtest.h>

#include "core/weights/gguf_types.h"
#include "core/weights/gguf_values.h"
#include "core/weights/weight_file.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

TEST(MetaValue, IntegersOfEveryWidthReadAsInt) {
  EXPECT_EQ(gguf::make_u8(200).as_int(), 200);
  EXPECT_EQ(gguf::make_i8(-5).as_int(), -5);
  EXPECT_EQ(gguf::make_u32(4294967295u).as_int(), 4294967295);
  EXPECT_EQ(gguf::make_i64(INT64_MIN).as_int(), INT64_MIN);
  EXPECT_EQ(gguf::make_bool(true).as_int(), 1);
  EXPECT_TRUE(gguf::make_u16(1).is_integer());
  EXPECT_FALSE(gguf::make_bool(true).is_integer());
}

TEST(MetaValue, Uint64AboveInt64MaxIsRefusedByAsInt) {
  test::expect_error([] { gguf::make_u64(UINT64_MAX).as_int(); },
                     {"metadata value 18446744073709551615 does not fit a signed 64-bit integer"});
}

TEST(MetaValue, AsFloatConvertsIntegers) {
  EXPECT_EQ(gguf::make_i32(-3).as_float(), -3.0);
  EXPECT_EQ(gguf::make_f32(0.5f).as_float(), 0.5);
  EXPECT_TRUE(gguf::make_f64(1.0).is_number());
  test::expect_error([] { gguf::make_bool(false).as_float(); },
                     {"metadata value false is a bool, not a number"});
}

TEST(MetaValue, WrongKindNamesTheValue) {
  test::expect_error([] { gguf::make_string("llama").as_int(); },
                     {"metadata value \"llama\" is a string, not an integer"});
  test::expect_error([] { gguf::make_u32(7).as_string(); },
                     {"metadata value 7 is an integer, not a string"});
  test::expect_error([] { gguf::make_u32(7).as_array(); }, {"not an array"});
}

TEST(MetaValue, DisplayAbbreviatesLongArrays) {
  std::vector<std::string> tokens;
  for (int i = 0; i < 10; ++i) tokens.push_back("t" + std::to_string(i));
  EXPECT_EQ(gguf::make_string_array(tokens).to_display(),
            "[\"t0\", \"t1\", \"t2\", \"t3\", \"t4\", \"t5\", ... 10 items]");
  const std::vector<int32_t> ints = {1, -2, 3};
  EXPECT_EQ(gguf::make_i32_array(ints).to_display(), "[1, -2, 3]");
  EXPECT_EQ(gguf::make_array(gguf::kFloat32, {}).to_display(), "[]");
}

TEST(MetaValue, DisplayOfFloatsIsShortest) {
  EXPECT_EQ(gguf::make_f32(1e-5f).to_display(), "1e-05");
  EXPECT_EQ(gguf::make_f64(0.1).to_display(), "0.1");
  EXPECT_EQ(gguf::make_f32(10000.0f).to_display(), "10000");
}

TEST(MetaValue, DisplayEscapesAndShortensStrings) {
  EXPECT_EQ(gguf::make_string("a\"b\n\x01").to_display(), "\"a\\\"b\\n\\x01\"");
  EXPECT_EQ(gguf::make_string(std::string(100, 'x')).to_display(),
            "\"" + std::string(60, 'x') + "...\"");
}

}  // namespace
}  // namespace tessera
