// Reading the tokenizer vocabulary out of weights-file metadata, with one error per
// broken key so a bad file says exactly what is wrong with it.
#include "core/tokenizer/vocab.h"

#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <variant>

#include "core/tokenizer/meta_reader.h"
#include "core/util/error.h"
#include "core/weights/byte_reader.h"
#include "core/weights/weight_file.h"

namespace tessera {
namespace {

constexpr std::string_view kModelKey = "tokenizer.ggml.model";
constexpr std::string_view kScoresKey = "tokenizer.ggml.scores";

std::vector<float> read_scores(const MetaReader& meta, size_t n) {
  std::vector<float> scores(n, 0.0f);
  const MetaArray* arr = meta.array(kScoresKey, static_cast<int64_t>(n));
  if (!arr) return scores;
  for (size_t i = 0; i < n; ++i) {
    const auto& v = (*arr)[i].value;
    if (const auto* d = std::get_if<double>(&v)) scores[i] = static_cast<float>(*d);
    else if (const auto* s = std::get_if<int64_t>(&v)) scores[i] = static_cast<float>(*s);
    else if (const auto* u = std::get_if<uint64_t>(&v)) scores[i] = static_cast<float>(*u);
    else meta.fail(kScoresKey, "entry " + std::to_string(i) + " is not a number");
  }
  return scores;
}

bool is_byte_token_text(const std::string& t) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  return t.size() == 6 && t.compare(0, 3, "<0x") == 0 && hex(t[3]) && hex(t[4]) && t[5] == '>';
}

// Without a token_type array the types follow from the texts and the special ids.
std::vector<TokenType> infer_types(const Vocab& v) {
  std::vector<TokenType> types(v.texts.size(), TokenType::Normal);
  for (size_t i = 0; i < v.texts.size(); ++i)
    if (is_byte_token_text(v.texts[i])) types[i] = TokenType::Byte;
  if (v.bos_id >= 0) types[v.bos_id] = TokenType::Control;
  if (v.eos_id >= 0) types[v.eos_id] = TokenType::Control;
  if (v.unk_id >= 0) types[v.unk_id] = TokenType::Unknown;
  return types;
}

// Every merge "left right" must join two pieces into a token, or merging by rank could
// leave a piece that is no token.
void check_merges_form_tokens(const Vocab& v, const std::string& origin) {
  const std::unordered_set<std::string_view> tokens(v.texts.begin(), v.texts.end());
  for (size_t i = 0; i < v.merges.size(); ++i) {
    const std::string& m = v.merges[i];
    const size_t space = m.find(' ', 1);
    if (space == std::string::npos)
      throw Error(origin + ": merge " + std::to_string(i) + " '" + m +
                  "' is not two tokens separated by a space");
    const std::string joined = m.substr(0, space) + m.substr(space + 1);
    if (!tokens.contains(joined))
      throw Error(origin + ": merge " + std::to_string(i) + " '" + m + "' forms '" + joined +
                  "', which is not a token");
  }
}

// A NaN score compares false with every other, so merging by score would depend on the
// order the pieces are met in; +inf outranks every real merge. -inf ("never") is allowed.
void check_scores_finite(const Vocab& v, const std::string& origin) {
  for (size_t i = 0; i < v.scores.size(); ++i) {
    const float s = v.scores[i];
    if (std::isnan(s) || s == std::numeric_limits<float>::infinity()) {
      throw Error(origin + ": the score of token " + std::to_string(i) + " ('" + printable_bytes({reinterpret_cast<const uint8_t*>(v.texts[i].data()), v.texts[i].size()}) +
                  "') is " + (std::isnan(s) ? "NaN" : "+inf"));
    }
  }
}

}  // namespace

Vocab vocab_from_metadata(const WeightFile& file) {
  MetaReader meta(file);
  const MetaValue* model = meta.find(kModelKey);
  if (!model) meta.fail(kModelKey, "is missing: the file has no tokenizer");
  const std::string model_name = meta.string_or(kModelKey, "");
  if (model_name != "llama")
    throw Error(file.path() + ": tokenizer model '" + model_name +
                "' is not a SentencePiece vocabulary (expected 'llama')");

  Vocab v;
  v.texts = read_token_texts(meta);
  const int32_t n = v.size();
  v.scores = read_scores(meta, v.texts.size());
  v.bos_id = meta.token_id_or_none("tokenizer.ggml.bos_token_id", n);
  v.eos_id = meta.token_id_or_none("tokenizer.ggml.eos_token_id", n);
  v.unk_id = meta.token_id_or_none("tokenizer.ggml.unknown_token_id", n);
  v.types = read_token_types(meta, v.texts.size());
  if (v.types.empty()) v.types = infer_types(v);
  v.add_bos = meta.bool_or("tokenizer.ggml.add_bos_token", true);
  v.add_eos = meta.bool_or("tokenizer.ggml.add_eos_token", false);
  v.add_space_prefix = meta.bool_or("tokenizer.ggml.add_space_prefix", true);
  validate_vocab(v, file.path());
  return v;
}

void validate_vocab(const Vocab& v, const std::string& origin) {
  const size_t n = v.texts.size();
  if (n == 0) throw Error(origin + ": the vocabulary is empty");
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw Error(origin + ": the vocabulary has too many tokens (" + std::to_string(n) + ")");
  if (v.scores.size() != n)
    throw Error(origin + ": vocabulary has " + std::to_string(v.scores.size()) + " scores for " +
                std::to_string(n) + " tokens");
  if (v.types.size() != n)
    throw Error(origin + ": vocabulary has " + std::to_string(v.types.size()) +
                " token types for " + std::to_string(n) + " tokens");
  check_scores_finite(v, origin);
  if (!v.merges.empty()) check_merges_form_tokens(v, origin);
  check_special_id(v.bos_id, "BOS", n, origin);
  check_special_id(v.eos_id, "EOS", n, origin);
  check_special_id(v.unk_id, "UNK", n, origin);
}

}  // namespace tessera
