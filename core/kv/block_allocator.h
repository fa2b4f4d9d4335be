// Fixed pool of KV cache blocks with reference counts: the physical side of the
// paged KV cache. Shared prefixes hold one block through several references.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace tessera {

// Hands out block ids in [0, n_blocks). A block is free at ref count 0 and in use
// above. Fresh blocks come out in ascending id order; after that the most recently
// freed block is reused first (it is the likeliest to still be in a cache).
//
// Prefix caching adds a third state. A block marked cached (its contents are named
// by a prefix index) does not become plainly free at ref count 0: it waits, still
// holding its tokens, where revive() can take it back. allocate() hands such a block
// out only when no plain free block is left, the least recently freed first, and
// tells the eviction handler so that the index forgets it. Cached free blocks count
// as free: they can always be taken.
//
// Misuse (unknown id, retain or release of a free block) throws tessera::Error:
// it means the bookkeeping above is broken, and the message says how.
class BlockAllocator {
 public:
  explicit BlockAllocator(int64_t n_blocks);

  // A free block with ref count 1, or std::nullopt when every block is in use:
  // the caller decides whether that is an error or a reason to preempt. Evicts the
  // least recently freed cached block when no plain free block is left.
  std::optional<int32_t> allocate();
  // Adds a reference to a block in use (a second table now points at it).
  void retain(int32_t id);
  // Drops a reference; the block becomes free when the count reaches 0 (cached
  // free when it is marked cached).
  void release(int32_t id);

  // Marks a block in use as holding contents a prefix index names.
  void mark_cached(int32_t id);
  // Takes a cached free block back into use with ref count 1 (a prefix cache hit).
  void revive(int32_t id);
  bool is_cached(int32_t id) const;
  // Called with the id of every cached block that allocate() evicts, before it is
  // handed out. Empty by default.
  void set_eviction_handler(std::function<void(int32_t)> handler) { on_evict_ = std::move(handler); }

  int32_t ref_count(int32_t id) const;
  int64_t n_blocks() const { return static_cast<int64_t>(ref_counts_.size()); }
  // Blocks allocate() can hand out: plain free plus cached free.
  int64_t n_free() const { return static_cast<int64_t>(free_stack_.size()) + n_cached_free_; }
  int64_t n_used() const { return n_blocks() - n_free(); }
  // The cached free blocks, least recently freed (evicted first) to most recently.
  std::vector<int32_t> cached_free_blocks() const;

  // A pool of `n_blocks` holding this one's kept blocks under new ids: block b is
  // kept as new_id[b] when new_id[b] >= 0 ([n_blocks()] entries, kept ids distinct
  // and in range), with its reference count, cached mark and place in the eviction
  // queue; every other id of the new pool is plainly free, handed out in ascending
  // order. Every block in use must be kept. No eviction handler is carried over.
  // Throws tessera::Error naming the broken rule.
  BlockAllocator renumbered(std::span<const int32_t> new_id, int64_t n_blocks) const;
  // Free blocks that still hold a reusable prefix.
  int64_t n_cached_free() const { return n_cached_free_; }

 private:
  void check_id(int32_t id, const char* operation) const;
  // The queue of cached free blocks: an intrusive doubly linked list, oldest at the head.
  void lru_push_back(int32_t id);
  void lru_unlink(int32_t id);

  std::vector<int32_t> ref_counts_;  // [n_blocks]
  std::vector<int32_t> free_stack_;  // plain free ids; the back is handed out next
  std::vector<uint8_t> cached_;      // [n_blocks] 1: contents named by a prefix index
  std::vector<int32_t> lru_prev_;    // [n_blocks] -1: none
  std::vector<int32_t> lru_next_;    // [n_blocks] -1: none
  int32_t lru_head_ = -1;            // evicted first
  int32_t lru_tail_ = -1;            // freed last
  int64_t n_cached_free_ = 0;
  std::function<void(int32_t)> on_evict_;
};

}  // namespace tessera
