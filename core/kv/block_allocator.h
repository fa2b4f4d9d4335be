// Fixed pool of KV cache blocks with reference counts: the physical side of the
// paged KV cache. Shared prefixes hold one block through several references.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tessera {

// Hands out block ids in [0, n_blocks). A block is free at ref count 0 and in use
// above. Fresh blocks come out in ascending id order; after that the most recently
// freed block is reused first (it is the likeliest to still be in a cache).
// Misuse (unknown id, retain or release of a free block) throws tessera::Error:
// it means the bookkeeping above is broken, and the message says how.
class BlockAllocator {
 public:
  explicit BlockAllocator(int64_t n_blocks);

  // A free block with ref count 1, or std::nullopt when every block is in use:
  // the caller decides whether that is an error or a reason to preempt.
  std::optional<int32_t> allocate();
  // Adds a reference to a block in use (a second table now points at it).
  void retain(int32_t id);
  // Drops a reference; the block becomes free when the count reaches 0.
  void release(int32_t id);

  int32_t ref_count(int32_t id) const;
  int64_t n_blocks() const { return static_cast<int64_t>(ref_counts_.size()); }
  int64_t n_free() const { return static_cast<int64_t>(free_stack_.size()); }
  int64_t n_used() const { return n_blocks() - n_free(); }

 private:
  void check_id(int32_t id, const char* operation) const;

  std::vector<int32_t> ref_counts_;  // [n_blocks]
  std::vector<int32_t> free_stack_;  // free ids; the back is handed out next
};

}  // namespace tessera
