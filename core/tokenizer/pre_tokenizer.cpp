// The pre-tokenizer recipes (a list of split patterns per tokenizer.ggml.pre value) and
// the splitting loop that applies them, leftmost match first like std::regex_iterator.
#include "core/tokenizer/pre_tokenizer.h"

#include <map>
#include <span>

#include "core/tokenizer/split_patterns.h"
#include "core/tokenizer/unicode_categories.h"
#include "core/util/error.h"

namespace tessera {
namespace {

namespace sp = split_patterns;

struct Span {
  size_t begin;  // code point index
  size_t end;
};

constexpr sp::Matcher kGpt2[] = {sp::gpt2};
constexpr sp::Matcher kDigitsApart[] = {sp::one_number, sp::gpt2};
constexpr sp::Matcher kFalcon[] = {sp::punct_and_symbols, sp::gpt2, sp::three_ascii_digits};
constexpr sp::Matcher kDeepseekLlm[] = {sp::line_break,        sp::deepseek_space_letters,
                                        sp::deepseek_space_punct, sp::trailing_spaces,
                                        sp::deepseek_cjk_hangul,  sp::numbers};
constexpr sp::Matcher kDeepseekCoder[] = {sp::line_break, sp::space_letters, sp::space_punct,
                                          sp::deepseek_cjk_hangul, sp::one_number};
constexpr sp::Matcher kDefault[] = {sp::punct_and_symbols_no_backtick, sp::gpt2, sp::numbers,
                                    sp::three_ascii_digits};

std::span<const sp::Matcher> recipe(PreTokenizer kind) {
  switch (kind) {
    case PreTokenizer::Gpt2: return kGpt2;
    case PreTokenizer::DigitsApart: return kDigitsApart;
    case PreTokenizer::Falcon: return kFalcon;
    case PreTokenizer::DeepseekLlm: return kDeepseekLlm;
    case PreTokenizer::DeepseekCoder: return kDeepseekCoder;
    case PreTokenizer::Default: return kDefault;
  }
  return kDefault;
}

// Cuts each span into the matches of `match` and the unmatched stretches between them.
std::vector<Span> split_spans(const std::vector<Span>& spans, const sp::Codepoints& cps,
                              sp::Matcher match) {
  std::vector<Span> out;
  out.reserve(spans.size() * 2);
  for (const Span& s : spans) {
    size_t unmatched_from = s.begin;
    for (size_t pos = s.begin; pos < s.end;) {
      const size_t n = match(cps, pos, s.end);
      if (n == 0) {
        ++pos;
        continue;
      }
      if (pos > unmatched_from) out.push_back({unmatched_from, pos});
      out.push_back({pos, pos + n});
      pos += n;
      unmatched_from = pos;
    }
    if (s.end > unmatched_from) out.push_back({unmatched_from, s.end});
  }
  return out;
}

}  // namespace

PreTokenizer pre_tokenizer_from_name(const std::string& name) {
  static const std::map<std::string, PreTokenizer> kByName = {
      {"", PreTokenizer::Default},
      {"default", PreTokenizer::Default},
      {"gpt-2", PreTokenizer::Gpt2},
      {"mpt", PreTokenizer::Gpt2},
      {"olmo", PreTokenizer::Gpt2},
      {"jais", PreTokenizer::Gpt2},
      {"starcoder", PreTokenizer::DigitsApart},
      {"refact", PreTokenizer::DigitsApart},
      {"command-r", PreTokenizer::DigitsApart},
      {"smollm", PreTokenizer::DigitsApart},
      {"codeshell", PreTokenizer::DigitsApart},
      {"exaone", PreTokenizer::DigitsApart},
      {"falcon", PreTokenizer::Falcon},
      {"deepseek-llm", PreTokenizer::DeepseekLlm},
      {"deepseek-coder", PreTokenizer::DeepseekCoder},
  };
  auto it = kByName.find(name);
  if (it != kByName.end()) return it->second;
  std::string known;
  for (const auto& [n, kind] : kByName)
    if (!n.empty()) known += (known.empty() ? "" : ", ") + n;
  throw Error("BPE pre-tokenizer '" + name + "' is not supported (supported: " + known + ")");
}

std::vector<std::string_view> pre_tokenize(PreTokenizer kind, std::string_view text) {
  const CodepointText decoded = decode_codepoints(text);
  std::vector<Span> spans;
  if (!decoded.codepoints.empty()) spans.push_back({0, decoded.codepoints.size()});
  for (sp::Matcher match : recipe(kind)) spans = split_spans(spans, decoded.codepoints, match);

  std::vector<std::string_view> words;
  words.reserve(spans.size());
  for (const Span& s : spans) {
    const size_t from = decoded.offsets[s.begin];
    words.push_back(text.substr(from, decoded.offsets[s.end] - from));
  }
  return words;
}

}  // namespace tessera
