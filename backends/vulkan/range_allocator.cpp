// First-fit range allocation with coalescing.
#include "backends/vulkan/range_allocator.h"

#include <iterator>

namespace tessera::vulkan {

RangeAllocator::RangeAllocator(uint64_t capacity) : capacity_(capacity) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t size, uint64_t alignment) {
  if (size == 0) size = 1;
  if (alignment == 0) alignment = 1;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = it->first, length = it->second;
    const uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
    const uint64_t padding = aligned - start;
    if (padding > length || length - padding < size) continue;
    // Take [start, aligned + size): the padding in front stays with the range, the tail
    // goes back to the free list.
    const uint64_t taken = padding + size;
    free_.erase(it);
    if (length > taken) free_.emplace(start + taken, length - taken);
    live_.emplace(aligned, Held{start, taken});
    used_ += taken;
    return aligned;
  }
  return std::nullopt;
}

bool RangeAllocator::free(uint64_t offset) {
  const auto it = live_.find(offset);
  if (it == live_.end()) return false;
  const Held held = it->second;
  live_.erase(it);
  used_ -= held.size;
  insert_free(held.start, held.size);
  return true;
}

void RangeAllocator::insert_free(uint64_t offset, uint64_t size) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {  // merge with the range after
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {  // merge with the range before
      prev->second += size;
      return;
    }
  }
  free_.emplace(offset, size);
}

}  // namespace tessera::vulkan
