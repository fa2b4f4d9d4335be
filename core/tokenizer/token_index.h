// Looking up a token id by its text, the one query the merge loop asks thousands of
// times per prompt: a hash map that accepts string_view without building a string.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera {

class TokenIndex {
 public:
  // Maps every text to its id. On a duplicate text the later id wins, as in llama.cpp,
  // so both engines pick the same token.
  explicit TokenIndex(const std::vector<std::string>& texts) {
    ids_.reserve(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) ids_[texts[i]] = static_cast<int32_t>(i);
  }

  // The id of the token whose text is exactly `text`, or -1.
  int32_t find(std::string_view text) const {
    auto it = ids_.find(text);
    return it == ids_.end() ? -1 : it->second;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace tessera
