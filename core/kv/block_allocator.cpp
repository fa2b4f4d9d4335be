#include "core/kv/block_allocator.h"

#include <limits>
#include <string>

#include "core/util/error.h"

namespace tessera {

BlockAllocator::BlockAllocator(int64_t n_blocks) {
  if (n_blocks < 0 || n_blocks > std::numeric_limits<int32_t>::max()) {
    throw Error("BlockAllocator: n_blocks " + std::to_string(n_blocks) +
                " out of range [0, " + std::to_string(std::numeric_limits<int32_t>::max()) +
                "]");
  }
  const auto n = static_cast<size_t>(n_blocks);
  ref_counts_.assign(n, 0);
  cached_.assign(n, 0);
  lru_prev_.assign(n, -1);
  lru_next_.assign(n, -1);
  // Pushed in descending order so that the first allocations return 0, 1, 2, ...
  free_stack_.reserve(n);
  for (int64_t id = n_blocks - 1; id >= 0; --id) {
    free_stack_.push_back(static_cast<int32_t>(id));
  }
}

std::optional<int32_t> BlockAllocator::allocate() {
  int32_t id = -1;
  if (!free_stack_.empty()) {
    id = free_stack_.back();
    free_stack_.pop_back();
  } else if (lru_head_ >= 0) {
    id = lru_head_;
    lru_unlink(id);
    cached_[static_cast<size_t>(id)] = 0;
    if (on_evict_) on_evict_(id);
  } else {
    return std::nullopt;
  }
  ref_counts_[static_cast<size_t>(id)] = 1;
  return id;
}

void BlockAllocator::retain(int32_t id) {
  check_id(id, "retain");
  int32_t& count = ref_counts_[static_cast<size_t>(id)];
  if (count == 0) {
    throw Error("BlockAllocator: retain of block " + std::to_string(id) +
                ", which is free (allocate it first)");
  }
  if (count == std::numeric_limits<int32_t>::max()) {
    throw Error("BlockAllocator: retain of block " + std::to_string(id) +
                " overflows its reference count");
  }
  ++count;
}

void BlockAllocator::release(int32_t id) {
  check_id(id, "release");
  int32_t& count = ref_counts_[static_cast<size_t>(id)];
  if (count == 0) {
    throw Error("BlockAllocator: release of block " + std::to_string(id) +
                ", which is already free");
  }
  if (--count > 0) return;
  if (cached_[static_cast<size_t>(id)]) {
    lru_push_back(id);
  } else {
    free_stack_.push_back(id);
  }
}

void BlockAllocator::mark_cached(int32_t id) {
  check_id(id, "mark_cached");
  if (ref_counts_[static_cast<size_t>(id)] == 0) {
    throw Error("BlockAllocator: mark_cached of block " + std::to_string(id) +
                ", which is free (only a block in use holds contents)");
  }
  cached_[static_cast<size_t>(id)] = 1;
}

void BlockAllocator::revive(int32_t id) {
  check_id(id, "revive");
  const auto i = static_cast<size_t>(id);
  if (!cached_[i] || ref_counts_[i] != 0) {
    throw Error("BlockAllocator: revive of block " + std::to_string(id) + ", which is " +
                (ref_counts_[i] != 0 ? "in use (retain it instead)" : "not cached"));
  }
  lru_unlink(id);
  ref_counts_[i] = 1;
}

bool BlockAllocator::is_cached(int32_t id) const {
  check_id(id, "is_cached");
  return cached_[static_cast<size_t>(id)] != 0;
}

int32_t BlockAllocator::ref_count(int32_t id) const {
  check_id(id, "ref_count");
  return ref_counts_[static_cast<size_t>(id)];
}

std::vector<int32_t> BlockAllocator::cached_free_blocks() const {
  std::vector<int32_t> ids;
  for (int32_t id = lru_head_; id >= 0; id = lru_next_[static_cast<size_t>(id)]) ids.push_back(id);
  return ids;
}

BlockAllocator BlockAllocator::renumbered(std::span<const int32_t> new_id, int64_t n_blocks) const {
  if (static_cast<int64_t>(new_id.size()) != this->n_blocks()) {
    throw Error("BlockAllocator: renumbering of " + std::to_string(this->n_blocks()) + " blocks given " +
                std::to_string(new_id.size()) + " new ids");
  }
  BlockAllocator out(n_blocks);
  std::vector<uint8_t> taken(static_cast<size_t>(n_blocks), 0);
  for (size_t b = 0; b < new_id.size(); ++b) {
    const int32_t to = new_id[b];
    if (to < 0) {
      if (ref_counts_[b] > 0) {
        throw Error("BlockAllocator: renumbering drops block " + std::to_string(b) + ", which is in use");
      }
      continue;
    }
    if (to >= n_blocks || taken[static_cast<size_t>(to)]) {
      throw Error("BlockAllocator: renumbering maps block " + std::to_string(b) + " to " + std::to_string(to) +
                  (to >= n_blocks ? ", outside the new pool of " + std::to_string(n_blocks)
                                  : ", which another block already takes"));
    }
    taken[static_cast<size_t>(to)] = 1;
    out.ref_counts_[static_cast<size_t>(to)] = ref_counts_[b];
    out.cached_[static_cast<size_t>(to)] = cached_[b];
  }
  // The eviction queue keeps its order; the plain free stack is the ids nothing took.
  for (int32_t id : cached_free_blocks()) {
    if (new_id[static_cast<size_t>(id)] >= 0) out.lru_push_back(new_id[static_cast<size_t>(id)]);
  }
  out.free_stack_.clear();
  for (int64_t id = n_blocks - 1; id >= 0; --id) {
    if (!taken[static_cast<size_t>(id)]) out.free_stack_.push_back(static_cast<int32_t>(id));
  }
  return out;
}

void BlockAllocator::check_id(int32_t id, const char* operation) const {
  if (id < 0 || id >= n_blocks()) {
    throw Error(std::string("BlockAllocator: ") + operation + " of block " +
                std::to_string(id) + ", out of range [0, " + std::to_string(n_blocks()) +
                ")");
  }
}

void BlockAllocator::lru_push_back(int32_t id) {
  const auto i = static_cast<size_t>(id);
  lru_prev_[i] = lru_tail_;
  lru_next_[i] = -1;
  if (lru_tail_ >= 0) {
    lru_next_[static_cast<size_t>(lru_tail_)] = id;
  } else {
    lru_head_ = id;
  }
  lru_tail_ = id;
  ++n_cached_free_;
}

void BlockAllocator::lru_unlink(int32_t id) {
  const auto i = static_cast<size_t>(id);
  const int32_t prev = lru_prev_[i];
  const int32_t next = lru_next_[i];
  if (prev >= 0) {
    lru_next_[static_cast<size_t>(prev)] = next;
  } else {
    lru_head_ = next;
  }
  if (next >= 0) {
    lru_prev_[static_cast<size_t>(next)] = prev;
  } else {
    lru_tail_ = prev;
  }
  lru_prev_[i] = -1;
  lru_next_[i] = -1;
  --n_cached_free_;
}

}  // namespace tessera
