// Device memory kept for reuse: a freed block goes to a cache by size and serves the
// next request it fits (within 1/8 of its size), so a decode step that allocates and
// frees the same scratch tensors reaches cudaMalloc only on its first run. Requests are
// rounded up to 512 bytes (the alignment cuBLAS and vector loads want). When the
// backing allocation fails, the cache is returned to the device and the allocation
// tried once more. Plain C++ over an injected backing, so it is tested without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

namespace tessera::cuda {

class CachingAllocator {
 public:
  struct Backing {
    std::function<void*(uint64_t)> allocate;  // nullptr when out of memory
    std::function<void(void*)> free;
  };

  static constexpr uint64_t kGranule = 512;

  explicit CachingAllocator(Backing backing) : backing_(std::move(backing)) {}
  ~CachingAllocator();  // returns the cached blocks; live ones are their owners' to free
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `size` bytes (a distinct non-null pointer for size 0 too), or
  // nullptr when the backing cannot provide one even with the cache emptied.
  void* allocate(uint64_t size);
  // Puts a block of allocate() back into the cache; nullptr is ignored. A pointer the
  // allocator did not hand out is refused: false.
  bool release(void* block);
  // Returns every cached block to the backing.
  void trim();

  uint64_t live_bytes() const;    // handed out, not yet released (rounded sizes)
  uint64_t cached_bytes() const;  // held for reuse
  uint64_t backing_allocations() const;  // calls of backing.allocate that succeeded

  static uint64_t rounded(uint64_t size) { return size == 0 ? kGranule : (size + kGranule - 1) / kGranule * kGranule; }

 private:
  void trim_locked();

  Backing backing_;
  mutable std::mutex mutex_;
  std::multimap<uint64_t, void*> cache_;       // rounded size -> block
  std::unordered_map<void*, uint64_t> live_;   // block -> rounded size
  uint64_t live_bytes_ = 0, cached_bytes_ = 0, backing_allocations_ = 0;
};

}  // namespace tessera::cuda
