// First-fit allocation of aligned byte ranges inside one block of a fixed size, with
// coalescing of freed neighbours. Pure bookkeeping: the device memory itself lives in
// memory.h; this class only decides offsets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace tessera::vulkan {

class RangeAllocator {
 public:
  explicit RangeAllocator(uint64_t capacity);

  // The offset of a free range of `size` bytes (0 is treated as 1) starting at a
  // multiple of `alignment` (a power of two), or nullopt when none fits.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment);
  // Returns the range that allocate() placed at `offset`; unknown offsets are ignored
  // and reported by the false result.
  bool free(uint64_t offset);

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }  // bytes in live ranges, alignment padding included
  bool empty() const { return live_.empty(); }
  size_t free_range_count() const { return free_.size(); }

 private:
  void insert_free(uint64_t offset, uint64_t size);

  uint64_t capacity_;
  uint64_t used_ = 0;
  struct Held {
    uint64_t start;  // the range's first byte, before the alignment padding
    uint64_t size;   // padding + requested size
  };
  std::map<uint64_t, uint64_t> free_;  // offset -> size; never adjacent (always coalesced)
  std::map<uint64_t, Held> live_;      // aligned offset handed out -> what it holds
};

}  // namespace tessera::vulkan
