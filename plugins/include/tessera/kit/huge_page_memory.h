// Anonymous memory that starts on a 2 MiB boundary and is asked for 2 MiB pages
// (MADV_HUGEPAGE where Linux has it; a request the kernel may refuse, and then 4 KiB
// pages back it). Streaming reads of large buffers (weights read into memory, the
// bandwidth measurement, a backend's repacked weights) then wait on fewer TLB misses.
// Freed with the object.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kit {

class HugePageMemory {
 public:
  static constexpr size_t kPageBytes = size_t{1} << 21;

  HugePageMemory() = default;
  // `bytes` (rounded up to whole huge pages), writable; empty (data() null, errno set)
  // when the system gives no memory.
  explicit HugePageMemory(size_t bytes);
  ~HugePageMemory();

  HugePageMemory(HugePageMemory&& other) noexcept;
  HugePageMemory& operator=(HugePageMemory&& other) noexcept;
  HugePageMemory(const HugePageMemory&) = delete;
  HugePageMemory& operator=(const HugePageMemory&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return bytes_; }  // whole huge pages
  // No more writes (as a read-only mapping would be).
  void make_read_only();

 private:
  void release() noexcept;

  void* region_ = nullptr;  // the reservation, one huge page longer than needed to find the boundary
  size_t region_bytes_ = 0;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace tessera::kit
