// Range-table lookups for the pre-tokenizer's character classes, and the UTF-8 decoder
// that tolerates invalid bytes without losing them.
#include "core/tokenizer/unicode_categories.h"

#include <algorithm>

#include "core/tokenizer/unicode_tables.h"

namespace tessera {
namespace {

using unicode_tables::CodepointRange;

bool in_ranges(std::span<const CodepointRange> ranges, char32_t c) {
  // The first range whose end is >= c is the only one that can hold c.
  auto it = std::lower_bound(ranges.begin(), ranges.end(), c,
                             [](const CodepointRange& r, char32_t v) { return r.last < v; });
  return it != ranges.end() && it->first <= c;
}

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Decodes the character at text[pos]; returns its length in bytes, 0 if invalid there.
size_t decode_one(std::string_view text, size_t pos, char32_t& out) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  size_t len = 0;
  char32_t min = 0;
  if (lead < 0x80) { out = lead; return 1; }
  if ((lead & 0xE0) == 0xC0) { len = 2; out = lead & 0x1F; min = 0x80; }
  else if ((lead & 0xF0) == 0xE0) { len = 3; out = lead & 0x0F; min = 0x800; }
  else if ((lead & 0xF8) == 0xF0) { len = 4; out = lead & 0x07; min = 0x10000; }
  else return 0;
  if (pos + len > text.size()) return 0;
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if (!is_continuation(b)) return 0;
    out = (out << 6) | (b & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not characters.
  if (out < min || out > 0x10FFFF || (out >= 0xD800 && out <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

bool is_letter(char32_t c) { return in_ranges(unicode_tables::letter_ranges(), c); }
bool is_number(char32_t c) { return in_ranges(unicode_tables::number_ranges(), c); }
bool is_punctuation(char32_t c) { return in_ranges(unicode_tables::punctuation_ranges(), c); }
bool is_whitespace(char32_t c) { return in_ranges(unicode_tables::whitespace_ranges(), c); }

CodepointText decode_codepoints(std::string_view utf8) {
  CodepointText text;
  text.codepoints.reserve(utf8.size());
  text.offsets.reserve(utf8.size() + 1);
  for (size_t pos = 0; pos < utf8.size();) {
    char32_t c = 0;
    size_t len = decode_one(utf8, pos, c);
    if (len == 0) {
      c = 0xFFFD;
      len = 1;
    }
    text.codepoints.push_back(c);
    text.offsets.push_back(pos);
    pos += len;
  }
  text.offsets.push_back(utf8.size());
  return text;
}

}  // namespace tessera
