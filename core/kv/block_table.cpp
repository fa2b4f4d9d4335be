#include "core/kv/block_table.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/util/error.h"

namespace tessera {

namespace {

int64_t blocks_for_tokens(int64_t n_tokens, int32_t block_size) {
  return (n_tokens + block_size - 1) / block_size;
}

}  // namespace

BlockTable::BlockTable(int32_t block_size) : block_size_(block_size) {
  if (block_size <= 0) {
    throw Error("BlockTable: block_size must be > 0, got " + std::to_string(block_size));
  }
}

bool BlockTable::last_block_needs_copy(int64_t n_tokens, const BlockAllocator& allocator) const {
  bool last_partly_filled = n_tokens_ % block_size_ != 0;
  return n_tokens > 0 && last_partly_filled && allocator.ref_count(blocks_.back()) > 1;
}

int64_t BlockTable::blocks_needed(int64_t n_tokens, const BlockAllocator& allocator) const {
  if (n_tokens < 0) {
    throw Error("BlockTable: cannot reserve a negative number of tokens (" +
                std::to_string(n_tokens) + ")");
  }
  if (n_tokens > std::numeric_limits<int64_t>::max() - n_tokens_ - block_size_) {
    return std::numeric_limits<int64_t>::max();  // more than any cache holds
  }
  int64_t new_blocks = blocks_for_tokens(n_tokens_ + n_tokens, block_size_) -
                       static_cast<int64_t>(blocks_.size());
  return new_blocks + (last_block_needs_copy(n_tokens, allocator) ? 1 : 0);
}

std::optional<SlotReservation> BlockTable::append_tokens(int64_t n_tokens,
                                                         BlockAllocator& allocator) {
  if (blocks_needed(n_tokens, allocator) > allocator.n_free()) return std::nullopt;
  if ((allocator.n_blocks() * block_size_) - 1 > std::numeric_limits<int32_t>::max()) {
    throw Error("BlockTable: " + std::to_string(allocator.n_blocks()) + " blocks of " +
                std::to_string(block_size_) + " tokens exceed the int32 slot range");
  }

  SlotReservation reservation;
  reservation.first_position = n_tokens_;
  // From here on allocate() cannot fail: blocks_needed() counted every block taken.
  if (last_block_needs_copy(n_tokens, allocator)) {
    int32_t src = blocks_.back();
    int32_t dst = *allocator.allocate();
    allocator.release(src);  // still held by the sequence(s) it is shared with
    blocks_.back() = dst;
    reservation.copy = BlockCopy{src, dst};
  }
  int64_t target = blocks_for_tokens(n_tokens_ + n_tokens, block_size_);
  while (static_cast<int64_t>(blocks_.size()) < target) blocks_.push_back(*allocator.allocate());

  reservation.slots.reserve(static_cast<size_t>(n_tokens));
  for (int64_t i = 0; i < n_tokens; ++i) {
    reservation.slots.push_back(slot_in_blocks(n_tokens_ + i));
  }
  n_tokens_ += n_tokens;
  return reservation;
}

BlockTable BlockTable::fork(BlockAllocator& allocator) const {
  BlockTable child(block_size_);
  for (int32_t id : blocks_) {
    if (id != kReleasedBlock) allocator.retain(id);
  }
  child.blocks_ = blocks_;
  child.n_tokens_ = n_tokens_;
  return child;
}

void BlockTable::append_full_block(int32_t id) {
  if (n_tokens_ % block_size_ != 0) {
    throw Error("BlockTable: cannot append a full block after " + std::to_string(n_tokens_) +
                " tokens, which end inside a block of " + std::to_string(block_size_));
  }
  blocks_.push_back(id);
  n_tokens_ += block_size_;
}

int64_t BlockTable::release_before(int64_t position, BlockAllocator& allocator) {
  int64_t released = 0;
  // Block b holds positions [b * bs, (b + 1) * bs): all before `position` when its end is.
  const int64_t n_whole = std::min<int64_t>(position / block_size_, static_cast<int64_t>(blocks_.size()));
  for (int64_t b = 0; b < n_whole; ++b) {
    int32_t& id = blocks_[static_cast<size_t>(b)];
    if (id == kReleasedBlock) continue;
    allocator.release(id);
    id = kReleasedBlock;
    ++released;
  }
  return released;
}

void BlockTable::release(BlockAllocator& allocator) {
  for (int32_t id : blocks_) {
    if (id != kReleasedBlock) allocator.release(id);
  }
  blocks_.clear();
  n_tokens_ = 0;
}

void BlockTable::release_newest_first(BlockAllocator& allocator) {
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    if (*it != kReleasedBlock) allocator.release(*it);
  }
  blocks_.clear();
  n_tokens_ = 0;
}

int32_t BlockTable::slot_of(int64_t position) const {
  if (position < 0 || position >= n_tokens_) {
    throw Error("BlockTable: position " + std::to_string(position) +
                " is outside the sequence's " + std::to_string(n_tokens_) + " tokens");
  }
  if (blocks_[static_cast<size_t>(position / block_size_)] == kReleasedBlock) {
    throw Error("BlockTable: position " + std::to_string(position) +
                " lies in a block released behind the sliding window");
  }
  return slot_in_blocks(position);
}

int32_t BlockTable::slot_in_blocks(int64_t position) const {
  int64_t block = blocks_[static_cast<size_t>(position / block_size_)];
  return static_cast<int32_t>(block * block_size_ + position % block_size_);
}

void BlockTable::renumber(std::span<const int32_t> new_id) {
  for (int32_t& b : blocks_) {
    if (b == kReleasedBlock) continue;
    if (b < 0 || static_cast<size_t>(b) >= new_id.size() || new_id[static_cast<size_t>(b)] < 0) {
      throw Error("BlockTable: renumbering gives no new id to block " + std::to_string(b) + ", which it holds");
    }
    b = new_id[static_cast<size_t>(b)];
  }
}

}  // namespace tessera
