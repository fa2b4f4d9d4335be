// The pieces of llama.cpp's pre-tokenizer regexes, as hand-written matchers over code
// points: each returns how many code points its pattern matches at `pos` (0: no match).
#pragma once

#include <cstddef>
#include <vector>

namespace tessera::split_patterns {

using Codepoints = std::vector<char32_t>;
// Matches the pattern at cps[pos], never reading at or past `end` (the fragment's end,
// which is also the end of text for lookaheads and `$`).
using Matcher = size_t (*)(const Codepoints& cps, size_t pos, size_t end);

// GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
size_t gpt2(const Codepoints& cps, size_t pos, size_t end);
// Llama 3 (tiktoken style): (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
size_t llama3(const Codepoints& cps, size_t pos, size_t end);
// Qwen2: Llama 3's pattern with \p{N} (one digit a word) instead of \p{N}{1,3}.
size_t qwen2(const Codepoints& cps, size_t pos, size_t end);
size_t one_number(const Codepoints& cps, size_t pos, size_t end);         // \p{N}
size_t numbers(const Codepoints& cps, size_t pos, size_t end);            // \p{N}+
size_t three_ascii_digits(const Codepoints& cps, size_t pos, size_t end); // [0-9][0-9][0-9]
size_t punct_and_symbols(const Codepoints& cps, size_t pos, size_t end);  // [\p{P}\$\+<=>\^~\|`]+
size_t punct_and_symbols_no_backtick(const Codepoints& cps, size_t pos, size_t end);  // [\p{P}\$\+<=>\^~\|]+
size_t line_break(const Codepoints& cps, size_t pos, size_t end);         // [\r\n]
size_t space_letters(const Codepoints& cps, size_t pos, size_t end);      // \s?\p{L}+
size_t space_punct(const Codepoints& cps, size_t pos, size_t end);        // \s?\p{P}+
size_t trailing_spaces(const Codepoints& cps, size_t pos, size_t end);    // \s+$
// DeepSeek's explicit classes (see split_patterns.cpp for the ranges).
size_t deepseek_space_letters(const Codepoints& cps, size_t pos, size_t end);
size_t deepseek_space_punct(const Codepoints& cps, size_t pos, size_t end);
size_t deepseek_cjk_hangul(const Codepoints& cps, size_t pos, size_t end);

}  // namespace tessera::split_patterns
