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
constexpr sp::Matcher kLlama3[] = {sp::llama3};
constexpr sp::Matcher kQwen2[] = {sp::qwen2};
constexpr sp::Matcher kDefault[] = {sp::punct_and_symbols_no_backtick, sp::gpt2, sp::numbers,
                                    sp::three_ascii_digits};

std::span<const sp::Matcher> recipe(PreTokenizer kind) {
  switch (kind) {
    case PreTokenizer::Gpt2: return kGpt2;
    case PreTokenizer::DigitsApart: return kDigitsApart;
    case PreTokenizer::Falcon: return kFalcon;
    case PreTokenizer::DeepseekLlm: return kDeepseekLlm;
    case PreTokenizer::DeepseekCoder: return kDeepseekCoder;
    case PreTokenizer::Llama3: return kLlama3;
    case PreTokenizer::Qwen2: return kQwen2;
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

PreTokenizerSpec pre_tokenizer_spec(const std::string& name) {
  using P = PreTokenizer;
  // As llama.cpp's llama_vocab::load maps the names (vendored in llama-cpp-python 0.3.36).
  constexpr PreTokenizerSpec kLlama3Family{P::Llama3, /*ignore_merges=*/true, /*add_bos=*/true};
  static const std::map<std::string, PreTokenizerSpec> kByName = {
      {"", {P::Default}},
      {"default", {P::Default}},
      {"gpt-2", {P::Gpt2}},
      {"mpt", {P::Gpt2}},
      {"olmo", {P::Gpt2}},
      {"jais", {P::Gpt2}},
      {"starcoder", {P::DigitsApart}},
      {"refact", {P::DigitsApart}},
      {"command-r", {P::DigitsApart}},
      {"smollm", {P::DigitsApart}},
      {"codeshell", {P::DigitsApart}},
      {"exaone", {P::DigitsApart}},
      {"falcon", {P::Falcon}},
      {"deepseek-llm", {P::DeepseekLlm}},
      {"deepseek-coder", {P::DeepseekCoder}},
      {"llama-bpe", kLlama3Family},
      {"llama3", kLlama3Family},
      {"llama-v3", kLlama3Family},
      {"falcon3", kLlama3Family},
      {"falcon-h1", kLlama3Family},
      {"pixtral", kLlama3Family},
      {"midm-2.0", kLlama3Family},
      {"lfm2", kLlama3Family},
      {"jina-v5-nano", kLlama3Family},
      {"dbrx", {P::Llama3}},
      {"smaug-bpe", {P::Llama3}},
      {"qwen2", {P::Qwen2}},
      {"deepseek-r1-qwen", {P::Qwen2}},
      {"stablelm2", {P::Qwen2}},
      {"megrez", {P::Qwen2}},
      {"kormo", {P::Qwen2}},
      {"f2llmv2", {P::Qwen2}},
      {"hunyuan", {P::Qwen2}},
      {"solar-open", {P::Qwen2}},
  };
  auto it = kByName.find(name);
  if (it != kByName.end()) return it->second;
  std::string known;
  for (const auto& [n, spec] : kByName)
    if (!n.empty()) known += (known.empty() ? "" : ", ") + n;
  throw Error("BPE pre-tokenizer '" + name + "' is not supported (supported: " + known + ")");
}

PreTokenizer pre_tokenizer_from_name(const std::string& name) { return pre_tokenizer_spec(name).kind; }

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
