// The prefix cache's index: full KV blocks keyed by a chain hash of their tokens and
// of every token before them, so equal prompt heads find the blocks computed for them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace tessera {

// The chain hash of a block: a hash of the block's tokens seeded with the hash of
// the block before it (kPrefixRoot for the first block), so a key stands for the
// whole prefix up to the block's end.
inline constexpr uint64_t kPrefixRoot = 0x5851F42D4C957F2Dull;
uint64_t chain_hash(uint64_t parent, std::span<const int32_t> tokens);

// Knows which block holds which prefix; holds no references (the allocator's
// cached state keeps the contents alive). Each entry keeps its tokens and its
// parent's key, and a lookup compares them, so a hash collision is a miss, never a
// wrong block: walking a prompt from kPrefixRoot, every hit is exact.
class PrefixIndex {
 public:
  explicit PrefixIndex(int64_t n_blocks);

  // The block holding `tokens` right after the prefix keyed `parent`, if any.
  std::optional<int32_t> find(uint64_t key, uint64_t parent, std::span<const int32_t> tokens) const;
  // Names `block` as holding `tokens` after `parent` under `key`. Returns false and
  // changes nothing when the key is already taken (another block holds the same
  // prefix) or the block already has a key.
  bool insert(int32_t block, uint64_t key, uint64_t parent, std::span<const int32_t> tokens);
  // Forgets the block's key (it was evicted); no-op when it has none.
  void erase(int32_t block);
  bool has_block(int32_t block) const;
  // Moves every entry of block b to new_id[b] in an index of `n_blocks` blocks; the
  // entries of blocks without a new id (new_id[b] < 0) are forgotten.
  void renumber(std::span<const int32_t> new_id, int64_t n_blocks);
  int64_t size() const { return static_cast<int64_t>(by_key_.size()); }

 private:
  struct Entry {
    bool used = false;
    uint64_t key = 0;
    uint64_t parent = 0;
    std::vector<int32_t> tokens;
  };
  std::unordered_map<uint64_t, int32_t> by_key_;
  std::vector<Entry> by_block_;  // [n_blocks]
};

}  // namespace tessera
