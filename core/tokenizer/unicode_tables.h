// The generated Unicode range tables (unicode_tables.cpp, from tools/unicode/): letters,
// numbers, punctuation and white space, as sorted disjoint code point ranges.
#pragma once

#include <span>

namespace tessera::unicode_tables {

struct CodepointRange {
  char32_t first;
  char32_t last;  // inclusive
};

std::span<const CodepointRange> letter_ranges();       // general category L*
std::span<const CodepointRange> number_ranges();       // general category N*
std::span<const CodepointRange> punctuation_ranges();  // general category P*
std::span<const CodepointRange> whitespace_ranges();   // property White_Space (regex \s)

}  // namespace tessera::unicode_tables
