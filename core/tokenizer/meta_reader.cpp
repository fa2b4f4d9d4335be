// Reading the token texts and types shared by the SentencePiece and BPE vocabularies.
#include "core/tokenizer/meta_reader.h"

namespace tessera {

std::vector<std::string> read_token_texts(const MetaReader& meta) {
  const MetaArray* arr = meta.array(kTokensKey, -1);
  if (!arr) meta.fail(kTokensKey, "is missing: the file has no tokenizer vocabulary");
  if (arr->empty()) meta.fail(kTokensKey, "is empty");
  if (arr->size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    meta.fail(kTokensKey, "has too many entries (" + std::to_string(arr->size()) + ")");
  std::vector<std::string> texts;
  texts.reserve(arr->size());
  for (size_t i = 0; i < arr->size(); ++i) {
    const auto* s = std::get_if<std::string>(&(*arr)[i].value);
    if (!s) meta.fail(kTokensKey, "entry " + std::to_string(i) + " is not a string");
    texts.push_back(*s);
  }
  return texts;
}

std::vector<TokenType> read_token_types(const MetaReader& meta, size_t n) {
  const MetaArray* arr = meta.array(kTypesKey, static_cast<int64_t>(n));
  if (!arr) return {};  // absent: the caller infers the types
  std::vector<TokenType> types(n, TokenType::Normal);
  for (size_t i = 0; i < n; ++i) {
    const auto& v = (*arr)[i].value;
    int64_t code = -1;  // stays out of 1..6 for any value that is not a known code
    std::string shown;
    if (const auto* s = std::get_if<int64_t>(&v)) {
      code = *s;
      shown = std::to_string(*s);
    } else if (const auto* u = std::get_if<uint64_t>(&v)) {
      if (*u <= 6) code = static_cast<int64_t>(*u);
      shown = std::to_string(*u);
    } else {
      meta.fail(kTypesKey, "entry " + std::to_string(i) + " is not an integer");
    }
    if (code < 1 || code > 6)
      meta.fail(kTypesKey, "entry " + std::to_string(i) + " has unknown token type " + shown +
                               " (expected 1..6)");
    types[i] = static_cast<TokenType>(code);
  }
  return types;
}

void check_special_id(int32_t id, const char* what, size_t n, const std::string& origin) {
  if (id < -1 || id >= static_cast<int32_t>(n)) {
    throw Error(origin + ": " + what + " id " + std::to_string(id) + " is out of range for a vocabulary of " +
                std::to_string(n) + " tokens");
  }
}

}  // namespace tessera
