// The CUDA backend's caching allocator over a counting host backing: reuse within an
// eighth of a block's size, rounding, the retry after emptying the cache when the
// backing is out of memory, refusal of foreign pointers, and the counters.
#include "backends/cuda/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

namespace tessera::cuda {
namespace {

// A backing of host memory that refuses allocations once `limit` bytes are out.
struct FakeBacking {
  uint64_t limit = UINT64_MAX;
  uint64_t outstanding = 0;
  int frees = 0;
  std::set<void*> blocks;

  CachingAllocator::Backing backing() {
    CachingAllocator::Backing b;
    b.allocate = [this](uint64_t size) -> void* {
      if (outstanding + size > limit) return nullptr;
      void* p = std::malloc(size);
      outstanding += size;
      blocks.insert(p);
      sizes[p] = size;
      return p;
    };
    b.free = [this](void* p) {
      outstanding -= sizes.at(p);
      blocks.erase(p);
      ++frees;
      std::free(p);
    };
    return b;
  }
  std::map<void*, uint64_t> sizes;
};

TEST(CachingAllocator, RoundsRequestsUpTo512Bytes) {
  EXPECT_EQ(CachingAllocator::rounded(0), 512u);
  EXPECT_EQ(CachingAllocator::rounded(1), 512u);
  EXPECT_EQ(CachingAllocator::rounded(512), 512u);
  EXPECT_EQ(CachingAllocator::rounded(513), 1024u);
  FakeBacking fake;
  CachingAllocator a(fake.backing());
  void* p = a.allocate(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(fake.sizes.at(p), 1024u);
  EXPECT_EQ(a.live_bytes(), 1024u);
  EXPECT_TRUE(a.release(p));
}

TEST(CachingAllocator, AReleasedBlockServesTheNextRequestOfItsSize) {
  FakeBacking fake;
  CachingAllocator a(fake.backing());
  void* first = a.allocate(4096);
  EXPECT_TRUE(a.release(first));
  EXPECT_EQ(a.cached_bytes(), 4096u);
  EXPECT_EQ(a.live_bytes(), 0u);
  void* again = a.allocate(4000);  // rounds to 4096: the same block
  EXPECT_EQ(again, first);
  EXPECT_EQ(a.backing_allocations(), 1u);
  EXPECT_EQ(a.cached_bytes(), 0u);
  EXPECT_TRUE(a.release(again));
}

TEST(CachingAllocator, ABlockMoreThanAnEighthTooLargeIsNotReused) {
  FakeBacking fake;
  CachingAllocator a(fake.backing());
  void* big = a.allocate(8192);
  a.release(big);
  void* near = a.allocate(7168);  // 8192 - 7168 = 1024 = 8192 / 8: fits
  EXPECT_EQ(near, big);
  a.release(near);
  void* small = a.allocate(4096);  // would waste half: a new block
  EXPECT_NE(small, big);
  EXPECT_EQ(a.backing_allocations(), 2u);
  a.release(small);
}

TEST(CachingAllocator, EmptiesTheCacheAndRetriesWhenTheBackingIsFull) {
  FakeBacking fake;
  fake.limit = 8192;
  CachingAllocator a(fake.backing());
  void* p = a.allocate(6144);
  a.release(p);  // cached, still out at the backing
  void* q = a.allocate(3072);  // 6144 - 3072 > 6144 / 8: not reused; backing full until trimmed
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(fake.frees, 1);
  EXPECT_EQ(a.cached_bytes(), 0u);
  EXPECT_EQ(fake.outstanding, 3072u);
  a.release(q);
}

TEST(CachingAllocator, ReturnsNullWhenEvenAnEmptyCacheCannotHelp) {
  FakeBacking fake;
  fake.limit = 4096;
  CachingAllocator a(fake.backing());
  EXPECT_EQ(a.allocate(8192), nullptr);
  EXPECT_EQ(a.allocate(UINT64_MAX), nullptr);
  EXPECT_EQ(a.live_bytes(), 0u);
}

TEST(CachingAllocator, RefusesPointersItDidNotHandOut) {
  FakeBacking fake;
  CachingAllocator a(fake.backing());
  int local = 0;
  EXPECT_FALSE(a.release(&local));
  EXPECT_TRUE(a.release(nullptr));
  void* p = a.allocate(16);
  EXPECT_TRUE(a.release(p));
  EXPECT_FALSE(a.release(p)) << "a second release of the same block";
}

TEST(CachingAllocator, TrimAndDestructionReturnTheCacheToTheBacking) {
  FakeBacking fake;
  {
    CachingAllocator a(fake.backing());
    void* p = a.allocate(512);
    void* q = a.allocate(1024);
    a.release(p);
    a.trim();
    EXPECT_EQ(fake.frees, 1);
    EXPECT_EQ(fake.outstanding, 1024u);
    a.release(q);
  }
  EXPECT_EQ(fake.frees, 2);
  EXPECT_EQ(fake.outstanding, 0u);
  EXPECT_TRUE(fake.blocks.empty());
}

TEST(CachingAllocator, DistinctLiveBlocksForZeroByteRequests) {
  FakeBacking fake;
  CachingAllocator a(fake.backing());
  void* p = a.allocate(0);
  void* q = a.allocate(0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  a.release(p);
  a.release(q);
}

}  // namespace
}  // namespace tessera::cuda
