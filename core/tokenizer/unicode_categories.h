// The Unicode character classes the BPE pre-tokenizers ask about (\p{L}, \p{N}, \p{P},
// \s), and UTF-8 text decoded into code points that remember their bytes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera {

bool is_letter(char32_t c);       // \p{L}
bool is_number(char32_t c);       // \p{N}
bool is_punctuation(char32_t c);  // \p{P}
bool is_whitespace(char32_t c);   // \s: Unicode White_Space

// Text as code points. Invalid UTF-8 bytes become U+FFFD one byte each (as in llama.cpp)
// but keep their place in `offsets`, so pieces cut from the text stay byte-exact.
struct CodepointText {
  std::vector<char32_t> codepoints;  // [n]
  std::vector<size_t> offsets;       // [n + 1] byte offset where each code point starts
};

CodepointText decode_codepoints(std::string_view utf8);

}  // namespace tessera
