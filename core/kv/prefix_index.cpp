#include "core/kv/prefix_index.h"

#include <algorithm>
#include <string>

#include "core/util/error.h"

namespace tessera {
namespace {

// splitmix64's finalizer: every input bit moves every output bit.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

}  // namespace

uint64_t chain_hash(uint64_t parent, std::span<const int32_t> tokens) {
  uint64_t h = mix(parent ^ (0x9E3779B97F4A7C15ull * (tokens.size() + 1)));
  for (int32_t t : tokens) h = mix(h + 0x9E3779B97F4A7C15ull + static_cast<uint32_t>(t));
  return h;
}

PrefixIndex::PrefixIndex(int64_t n_blocks) : by_block_(static_cast<size_t>(n_blocks)) {}

std::optional<int32_t> PrefixIndex::find(uint64_t key, uint64_t parent,
                                         std::span<const int32_t> tokens) const {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  const Entry& e = by_block_[static_cast<size_t>(it->second)];
  if (e.parent != parent || !std::equal(e.tokens.begin(), e.tokens.end(), tokens.begin(), tokens.end())) {
    return std::nullopt;  // a collision: another prefix hashed to the same key
  }
  return it->second;
}

bool PrefixIndex::insert(int32_t block, uint64_t key, uint64_t parent, std::span<const int32_t> tokens) {
  if (block < 0 || static_cast<size_t>(block) >= by_block_.size()) {
    throw Error("PrefixIndex: block " + std::to_string(block) + " out of range [0, " +
                std::to_string(by_block_.size()) + ")");
  }
  Entry& e = by_block_[static_cast<size_t>(block)];
  if (e.used || by_key_.count(key) != 0) return false;
  e.used = true;
  e.key = key;
  e.parent = parent;
  e.tokens.assign(tokens.begin(), tokens.end());
  by_key_.emplace(key, block);
  return true;
}

void PrefixIndex::erase(int32_t block) {
  Entry& e = by_block_.at(static_cast<size_t>(block));
  if (!e.used) return;
  by_key_.erase(e.key);
  e = Entry{};
}

bool PrefixIndex::has_block(int32_t block) const {
  return block >= 0 && static_cast<size_t>(block) < by_block_.size() &&
         by_block_[static_cast<size_t>(block)].used;
}

void PrefixIndex::renumber(std::span<const int32_t> new_id, int64_t n_blocks) {
  std::vector<Entry> moved(static_cast<size_t>(n_blocks));
  by_key_.clear();
  for (size_t b = 0; b < by_block_.size(); ++b) {
    Entry& e = by_block_[b];
    if (!e.used || b >= new_id.size() || new_id[b] < 0) continue;
    const auto to = static_cast<size_t>(new_id[b]);
    by_key_.emplace(e.key, static_cast<int32_t>(to));
    moved.at(to) = std::move(e);
  }
  by_block_ = std::move(moved);
}

}  // namespace tessera
