// One sequence's view of the paged KV cache: its blocks in order and its length.
// Token i of the sequence lives at cache row slot = blocks[i / bs] * bs + i % bs.
// Entries of blocks released behind a sliding window read kReleasedBlock.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/kv/block_allocator.h"

namespace tessera {

// A block the caller must copy on the device (all block_size rows, in every
// layer's K and V cache) before writing the new tokens: copy-on-write of a block
// that was shared with another sequence.
struct BlockCopy {
  int32_t src = 0;
  int32_t dst = 0;
  friend bool operator==(const BlockCopy&, const BlockCopy&) = default;
};

// Where the next tokens of a sequence go.
struct SlotReservation {
  std::vector<int32_t> slots;     // [n] cache row of each new token, in order
  // To perform before the step writes any KV row: once the reservation is made,
  // `src` may be freed and handed to another sequence within the same step.
  std::optional<BlockCopy> copy;
  int64_t first_position = 0;     // position of slots[0] in the sequence
};

// Holds references to allocator blocks but does not own the allocator: every
// method that changes references takes it, and release() must be called before a
// table is dropped. Tables are move-only so that a reference is never duplicated
// behind the allocator's back; fork() is the explicit way to share.
class BlockTable {
 public:
  // The entry of a block given back because no later token attends to it.
  static constexpr int32_t kReleasedBlock = -1;

  explicit BlockTable(int32_t block_size);
  BlockTable(BlockTable&&) = default;
  BlockTable& operator=(BlockTable&&) = default;
  BlockTable(const BlockTable&) = delete;
  BlockTable& operator=(const BlockTable&) = delete;

  // Blocks that append_tokens(n_tokens) would take from the allocator: new blocks
  // plus one for copy-on-write when the partly filled last block is shared.
  int64_t blocks_needed(int64_t n_tokens, const BlockAllocator& allocator) const;

  // Reserves rows for n_tokens more tokens. All or nothing: when the allocator
  // has fewer free blocks than blocks_needed(), nothing changes and the result is
  // std::nullopt. A shared, partly filled last block is replaced by a private
  // copy (reported in SlotReservation::copy); full shared blocks are never
  // written again, so they stay shared.
  std::optional<SlotReservation> append_tokens(int64_t n_tokens, BlockAllocator& allocator);

  // A table with the same tokens that shares every block (one more reference each).
  BlockTable fork(BlockAllocator& allocator) const;

  // Appends a full block of tokens computed earlier (a prefix cache hit) whose
  // reference the caller has already taken. The table must end on a block boundary.
  void append_full_block(int32_t id);

  // Gives back the blocks all of whose positions lie before `position` (they fell
  // out of a sliding window); their entries become kReleasedBlock. Returns how many
  // blocks this released.
  int64_t release_before(int64_t position, BlockAllocator& allocator);

  // Drops every reference and empties the table, first block first.
  void release(BlockAllocator& allocator);
  // The same, last block first: with prefix caching the blocks of a prompt's end
  // then wait longer in the eviction queue than its head, whose loss would make
  // every later block of the chain unreachable.
  void release_newest_first(BlockAllocator& allocator);

  // Replaces every block id b it holds by new_id[b] (a cache renumbered by
  // BlockAllocator::renumbered); released entries stay released. Throws when a held
  // block has no new id.
  void renumber(std::span<const int32_t> new_id);

  // Cache row of the token at `position` (0 <= position < n_tokens()); throws when
  // its block was released.
  int32_t slot_of(int64_t position) const;

  const std::vector<int32_t>& blocks() const { return blocks_; }
  int64_t n_tokens() const { return n_tokens_; }
  int32_t block_size() const { return block_size_; }

 private:
  bool last_block_needs_copy(int64_t n_tokens, const BlockAllocator& allocator) const;
  // Slot of a position inside the reserved blocks, which may lie past n_tokens_.
  int32_t slot_in_blocks(int64_t position) const;

  int32_t block_size_;
  std::vector<int32_t> blocks_;  // block ids, in token order
  int64_t n_tokens_ = 0;
};

}  // namespace tessera
