// The merge loop of byte-level BPE: a word's characters are joined pairwise, always the
// adjacent pair whose merge has the lowest rank (leftmost on ties), until none applies.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera {

// The rank of each merge "left right" (its index in the merge list; the first of
// duplicates wins, as in llama.cpp).
class BpeRanks {
 public:
  explicit BpeRanks(const std::vector<std::string>& merges);
  // The rank of merging `left` with `right`, or -1 when there is no such merge.
  int32_t find(std::string_view left, std::string_view right) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ranks_;
};

// Splits `word` (UTF-8 text in GPT-2's byte alphabet) into its final merged pieces,
// substrings of `word` in order.
std::vector<std::string_view> bpe_merge(std::string_view word, const BpeRanks& ranks);

}  // namespace tessera
