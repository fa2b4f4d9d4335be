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
  ref_counts_.assign(static_cast<size_t>(n_blocks), 0);
  // Pushed in descending order so that the first allocations return 0, 1, 2, ...
  free_stack_.reserve(static_cast<size_t>(n_blocks));
  for (int64_t id = n_blocks - 1; id >= 0; --id) {
    free_stack_.push_back(static_cast<int32_t>(id));
  }
}

std::optional<int32_t> BlockAllocator::allocate() {
  if (free_stack_.empty()) return std::nullopt;
  int32_t id = free_stack_.back();
  free_stack_.pop_back();
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
  if (--count == 0) free_stack_.push_back(id);
}

int32_t BlockAllocator::ref_count(int32_t id) const {
  check_id(id, "ref_count");
  return ref_counts_[static_cast<size_t>(id)];
}

void BlockAllocator::check_id(int32_t id, const char* operation) const {
  if (id < 0 || id >= n_blocks()) {
    throw Error(std::string("BlockAllocator: ") + operation + " of block " +
                std::to_string(id) + ", out of range [0, " + std::to_string(n_blocks()) +
                ")");
  }
}

}  // namespace tessera
