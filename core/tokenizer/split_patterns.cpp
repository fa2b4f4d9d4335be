// Matchers for the pre-tokenizer patterns. They reproduce how llama.cpp runs the regexes
// (std::regex on code points where every non-ASCII white space reads as \v), so explicit
// character classes never contain a white-space character. The Llama 3 / Qwen2 pattern,
// which llama.cpp matches by hand too, follows the regex as Hugging Face's tokenizers runs it.
#include "core/tokenizer/split_patterns.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/tokenizer/unicode_categories.h"

namespace tessera::split_patterns {
namespace {

struct Range {
  char32_t first;
  char32_t last;
};

// The letter class of DeepSeek LLM's second regex (cased letters of many scripts).
constexpr Range kDeepseekLetters[] = {
    {0x0041, 0x005A}, {0x0061, 0x007A}, {0x00B5, 0x00B5}, {0x00C0, 0x00D6}, {0x00D8, 0x00F6},
    {0x00F8, 0x01BA}, {0x01BC, 0x01BF}, {0x01C4, 0x0293}, {0x0295, 0x02AF}, {0x0370, 0x0373},
    {0x0376, 0x0377}, {0x037B, 0x037D}, {0x037F, 0x037F}, {0x0386, 0x0386}, {0x0388, 0x038A},
    {0x038C, 0x038C}, {0x038E, 0x03A1}, {0x03A3, 0x03F5}, {0x03F7, 0x0481}, {0x048A, 0x052F},
    {0x0531, 0x0556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD}, {0x1C90, 0x1CBA},
    {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A}, {0x1E00, 0x1F15},
    {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59},
    {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC},
    {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3}, {0x1FD6, 0x1FDB},
    {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC}, {0x2102, 0x2102}, {0x2107, 0x2107},
    {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126},
    {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139}, {0x213C, 0x213F},
    {0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B}, {0x2C7E, 0x2CE4},
    {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B}, {0xA722, 0xA76F},
    {0xA771, 0xA787}, {0xA78B, 0xA78E}, {0xAB70, 0xABBF}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17},
    {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3},
    {0x104D8, 0x104FB}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF},
    {0x1E900, 0x1E943},
};

// DeepSeek LLM's punctuation class: ASCII !-/ and :-~, their full-width forms, quotes
// U+2018-U+201F and U+3000-U+3002 (U+3000 is white space, so only its \s side counts).
constexpr Range kDeepseekPunct[] = {{0x21, 0x2F},     {0x3A, 0x7E},     {0x2018, 0x201F},
                                    {0x3000, 0x3002}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E}};

// CJK ideographs, U+0800..U+4E00 (sic, as the model's regex has it) and Hangul.
constexpr Range kDeepseekCjkHangul[] = {{0x0800, 0x4E00}, {0x4E00, 0x9FA5}, {0xAC00, 0xD7FF}};

template <size_t N>
bool in_class(const Range (&ranges)[N], char32_t c) {
  if (c > 0x7F && is_whitespace(c)) return false;  // reads as \v in the regex engine
  return std::any_of(std::begin(ranges), std::end(ranges),
                     [c](const Range& r) { return r.first <= c && c <= r.last; });
}

enum class CharClass { Letter, Number, Space, Other };

CharClass classify(char32_t c) {
  if (is_letter(c)) return CharClass::Letter;
  if (is_number(c)) return CharClass::Number;
  if (is_whitespace(c)) return CharClass::Space;
  return CharClass::Other;
}

template <typename Pred>
size_t run_length(const Codepoints& cps, size_t pos, size_t end, Pred pred) {
  size_t i = pos;
  while (i < end && pred(cps[i])) ++i;
  return i - pos;
}

// \s?X+ : one optional white space, then at least one X.
template <typename Pred>
size_t optional_space_then_run(const Codepoints& cps, size_t pos, size_t end, Pred pred) {
  if (is_whitespace(cps[pos]) && pos + 1 < end) {
    const size_t run = run_length(cps, pos + 1, end, pred);
    if (run > 0) return run + 1;
  }
  return run_length(cps, pos, end, pred);
}

bool is_ascii_symbol_in(std::string_view set, char32_t c) {
  return c < 0x80 && set.find(static_cast<char>(c)) != std::string_view::npos;
}

size_t contraction(const Codepoints& cps, size_t pos, size_t end) {
  if (cps[pos] != '\'' || pos + 1 >= end) return 0;
  const char32_t a = cps[pos + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (pos + 2 >= end) return 0;
  const char32_t b = cps[pos + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d): case-insensitive as Hugging Face's regex engine matches it,
// which folds U+017F (long s) to 's' too. llama.cpp lowercases ASCII only; the two differ
// just on "'\u017F".
bool folds_to(char32_t c, char lower) {
  if (lower == 's' && c == 0x017F) return true;
  return c == static_cast<char32_t>(lower) || c == static_cast<char32_t>(lower - 'a' + 'A');
}

size_t contraction_any_case(const Codepoints& cps, size_t pos, size_t end) {
  if (cps[pos] != '\'' || pos + 1 >= end) return 0;
  const char32_t a = cps[pos + 1];
  if (folds_to(a, 's') || folds_to(a, 't') || folds_to(a, 'm') || folds_to(a, 'd')) return 2;
  if (pos + 2 >= end) return 0;
  const char32_t b = cps[pos + 2];
  if ((folds_to(a, 'r') && folds_to(b, 'e')) || (folds_to(a, 'v') && folds_to(b, 'e')) ||
      (folds_to(a, 'l') && folds_to(b, 'l')))
    return 3;
  return 0;
}

bool is_line_break(char32_t c) { return c == '\r' || c == '\n'; }

// The Llama 3 / Qwen2 pattern, alternatives tried in order at `pos` as a backtracking
// regex engine does; `max_digits` is the {1,3} of Llama 3 or the single \p{N} of Qwen2.
size_t llama3_style(const Codepoints& cps, size_t pos, size_t end, size_t max_digits) {
  if (const size_t n = contraction_any_case(cps, pos, end)) return n;
  const char32_t c = cps[pos];
  const CharClass k = classify(c);
  // [^\r\n\p{L}\p{N}]?\p{L}+ : letters, with one leading character of any other kind.
  if (k == CharClass::Letter) return run_length(cps, pos, end, is_letter);
  if (k != CharClass::Number && !is_line_break(c) && pos + 1 < end && is_letter(cps[pos + 1]))
    return 1 + run_length(cps, pos + 1, end, is_letter);
  // \p{N}{1,max_digits}
  if (k == CharClass::Number) return std::min(run_length(cps, pos, end, is_number), max_digits);
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*` : symbols, one leading space, the line breaks after them.
  const size_t first = c == ' ' ? pos + 1 : pos;
  if (first < end && classify(cps[first]) == CharClass::Other) {
    size_t i = first + run_length(cps, first, end, [](char32_t x) {
                 return classify(x) == CharClass::Other;
               });
    i += run_length(cps, i, end, is_line_break);
    return i - pos;
  }
  // \s*[\r\n]+ : the white space up to and including its last line break.
  const size_t spaces = run_length(cps, pos, end, is_whitespace);
  size_t through_break = 0;
  for (size_t i = 0; i < spaces; ++i)
    if (is_line_break(cps[pos + i])) through_break = i + 1;
  if (through_break > 0) return through_break;
  // \s+(?!\S) leaves the last space of a run for the word after it; \s+ takes the rest.
  if (spaces > 1 && pos + spaces < end) return spaces - 1;
  return std::max<size_t>(spaces, 1);
}

}  // namespace

size_t llama3(const Codepoints& cps, size_t pos, size_t end) { return llama3_style(cps, pos, end, 3); }

size_t qwen2(const Codepoints& cps, size_t pos, size_t end) { return llama3_style(cps, pos, end, 1); }

size_t gpt2(const Codepoints& cps, size_t pos, size_t end) {
  if (const size_t n = contraction(cps, pos, end)) return n;
  // ` ?X+` for X = letters, numbers or "other": one leading space joins the run.
  const size_t first = cps[pos] == ' ' ? pos + 1 : pos;
  if (first < end) {
    const CharClass k = classify(cps[first]);
    if (k != CharClass::Space)
      return first - pos + run_length(cps, first, end, [k](char32_t c) { return classify(c) == k; });
  }
  // \s+(?!\S) leaves the last space of a run for the word after it; \s+ takes the rest.
  const size_t spaces = run_length(cps, pos, end, is_whitespace);
  if (spaces > 1 && pos + spaces < end) return spaces - 1;
  return std::max<size_t>(spaces, 1);
}

size_t one_number(const Codepoints& cps, size_t pos, size_t) { return is_number(cps[pos]) ? 1 : 0; }

size_t numbers(const Codepoints& cps, size_t pos, size_t end) {
  return run_length(cps, pos, end, is_number);
}

size_t three_ascii_digits(const Codepoints& cps, size_t pos, size_t end) {
  const bool ok = pos + 3 <= end && run_length(cps, pos, pos + 3, [](char32_t c) {
                    return c >= '0' && c <= '9';
                  }) == 3;
  return ok ? 3 : 0;
}

size_t punct_and_symbols(const Codepoints& cps, size_t pos, size_t end) {
  return run_length(cps, pos, end, [](char32_t c) {
    return is_punctuation(c) || is_ascii_symbol_in("$+<=>^~|`", c);
  });
}

size_t punct_and_symbols_no_backtick(const Codepoints& cps, size_t pos, size_t end) {
  return run_length(cps, pos, end, [](char32_t c) {
    return is_punctuation(c) || is_ascii_symbol_in("$+<=>^~|", c);
  });
}

size_t line_break(const Codepoints& cps, size_t pos, size_t) {
  return cps[pos] == '\r' || cps[pos] == '\n' ? 1 : 0;
}

size_t space_letters(const Codepoints& cps, size_t pos, size_t end) {
  return optional_space_then_run(cps, pos, end, is_letter);
}

size_t space_punct(const Codepoints& cps, size_t pos, size_t end) {
  return optional_space_then_run(cps, pos, end, is_punctuation);
}

size_t trailing_spaces(const Codepoints& cps, size_t pos, size_t end) {
  const size_t n = run_length(cps, pos, end, is_whitespace);
  return pos + n == end ? n : 0;
}

size_t deepseek_space_letters(const Codepoints& cps, size_t pos, size_t end) {
  return optional_space_then_run(cps, pos, end,
                                 [](char32_t c) { return in_class(kDeepseekLetters, c); });
}

size_t deepseek_space_punct(const Codepoints& cps, size_t pos, size_t end) {
  return optional_space_then_run(cps, pos, end,
                                 [](char32_t c) { return in_class(kDeepseekPunct, c); });
}

size_t deepseek_cjk_hangul(const Codepoints& cps, size_t pos, size_t end) {
  return run_length(cps, pos, end, [](char32_t c) { return in_class(kDeepseekCjkHangul, c); });
}

}  // namespace tessera::split_patterns
