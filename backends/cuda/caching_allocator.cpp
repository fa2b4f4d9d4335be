// The cache of device blocks (see caching_allocator.h).
#include "backends/cuda/caching_allocator.h"

namespace tessera::cuda {

CachingAllocator::~CachingAllocator() { trim_locked(); }

void* CachingAllocator::allocate(uint64_t size) {
  if (size > UINT64_MAX - kGranule) return nullptr;
  const uint64_t want = rounded(size);
  std::lock_guard lock(mutex_);
  // The smallest cached block that fits and wastes at most an eighth of itself.
  const auto it = cache_.lower_bound(want);
  if (it != cache_.end() && it->first - want <= it->first / 8) {
    void* block = it->second;
    const uint64_t have = it->first;
    cache_.erase(it);
    cached_bytes_ -= have;
    live_.emplace(block, have);
    live_bytes_ += have;
    return block;
  }
  void* block = backing_.allocate(want);
  if (block == nullptr && !cache_.empty()) {
    trim_locked();
    block = backing_.allocate(want);
  }
  if (block == nullptr) return nullptr;
  ++backing_allocations_;
  try {
    live_.emplace(block, want);
  } catch (...) {
    backing_.free(block);
    throw;
  }
  live_bytes_ += want;
  return block;
}

bool CachingAllocator::release(void* block) {
  if (block == nullptr) return true;
  std::lock_guard lock(mutex_);
  const auto it = live_.find(block);
  if (it == live_.end()) return false;
  const uint64_t size = it->second;
  live_.erase(it);
  live_bytes_ -= size;
  try {
    cache_.emplace(size, block);
    cached_bytes_ += size;
  } catch (...) {
    backing_.free(block);  // no room to remember it: give it back instead
  }
  return true;
}

void CachingAllocator::trim() {
  std::lock_guard lock(mutex_);
  trim_locked();
}

void CachingAllocator::trim_locked() {
  for (const auto& [size, block] : cache_) backing_.free(block);
  cache_.clear();
  cached_bytes_ = 0;
}

uint64_t CachingAllocator::live_bytes() const {
  std::lock_guard lock(mutex_);
  return live_bytes_;
}

uint64_t CachingAllocator::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

uint64_t CachingAllocator::backing_allocations() const {
  std::lock_guard lock(mutex_);
  return backing_allocations_;
}

}  // namespace tessera::cuda
