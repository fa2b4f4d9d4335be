// Typed, error-checked reads of weights-file metadata for the tokenizer loaders: every
// failure names the file and the key, so a broken vocabulary says what is wrong with it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/tokenizer/vocab.h"
#include "core/util/error.h"
#include "core/weights/weight_file.h"

namespace tessera {

inline constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";
inline constexpr std::string_view kTypesKey = "tokenizer.ggml.token_type";

// Reads typed values out of the metadata of one file; every error names the file and key.
class MetaReader {
 public:
  explicit MetaReader(const WeightFile& file) : file_(file) {}

  const MetaValue* find(std::string_view key) const {
    const auto& meta = file_.metadata();
    auto it = meta.find(std::string(key));
    return it == meta.end() ? nullptr : &it->second;
  }

  [[noreturn]] void fail(std::string_view key, const std::string& cause) const {
    throw Error(file_.path() + ": metadata key '" + std::string(key) + "' " + cause);
  }

  std::string string_or(std::string_view key, const std::string& fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    if (const auto* s = std::get_if<std::string>(&v->value)) return *s;
    fail(key, "must be a string");
  }

  bool bool_or(std::string_view key, bool fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    if (const auto* b = std::get_if<bool>(&v->value)) return *b;
    fail(key, "must be a boolean");
  }

  // A token id: absent, negative or 0xFFFFFFFF (GGUF's "unset") gives -1.
  int32_t token_id_or_none(std::string_view key, int32_t n_vocab) const {
    const MetaValue* v = find(key);
    if (!v) return -1;
    int64_t id = 0;
    if (const auto* i = std::get_if<int64_t>(&v->value)) {
      id = *i;
    } else if (const auto* u = std::get_if<uint64_t>(&v->value)) {
      if (*u == std::numeric_limits<uint32_t>::max() || *u == std::numeric_limits<uint64_t>::max())
        return -1;
      if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        fail(key, "is " + std::to_string(*u) + ", out of range for a vocabulary of " +
                      std::to_string(n_vocab) + " tokens");
      id = static_cast<int64_t>(*u);
    } else {
      fail(key, "must be an integer");
    }
    if (id < 0) return -1;
    if (id >= n_vocab)
      fail(key, "is " + std::to_string(id) + ", out of range for a vocabulary of " +
                    std::to_string(n_vocab) + " tokens");
    return static_cast<int32_t>(id);
  }

  // The array under `key`, or nullptr when absent; its length must be `expected` if >= 0.
  const MetaArray* array(std::string_view key, int64_t expected) const {
    const MetaValue* v = find(key);
    if (!v) return nullptr;
    const auto* arr = std::get_if<MetaArray>(&v->value);
    if (!arr) fail(key, "must be an array");
    if (expected >= 0 && static_cast<int64_t>(arr->size()) != expected)
      fail(key, "has " + std::to_string(arr->size()) + " entries but " + std::string(kTokensKey) +
                    " has " + std::to_string(expected));
    return arr;
  }

 private:
  const WeightFile& file_;
};

// The token texts (tokenizer.ggml.tokens): required, non-empty, all strings.
std::vector<std::string> read_token_texts(const MetaReader& meta);
// The token types (tokenizer.ggml.token_type, n entries of codes 1..6); empty when absent.
std::vector<TokenType> read_token_types(const MetaReader& meta, size_t n);

// Throws "<origin>: <what> id N is out of range for a vocabulary of n tokens" unless id
// is -1 (none) or names a token.
void check_special_id(int32_t id, const char* what, size_t n, const std::string& origin);

}  // namespace tessera
