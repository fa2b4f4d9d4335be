// The CPU backend's thread pool: coverage of the range, chunk sizes, exceptions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backends/cpu/thread_pool.h"

namespace tessera::cpu::test {
namespace {

TEST(CpuThreadPool, ZeroThreadsMeansHardwareConcurrency) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.size(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(CpuThreadPool, ParallelForVisitsEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 5, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      pool.parallel_for(n, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n << ", " << threads << " threads";
      }
    }
  }
}

TEST(CpuThreadPool, ChunksHoldAtLeastTheGrain) {
  ThreadPool pool(3);
  std::mutex m;
  std::vector<int64_t> sizes;
  pool.parallel_for(100, 30, [&](int64_t begin, int64_t end) {
    std::lock_guard lock(m);
    sizes.push_back(end - begin);
  });
  std::sort(sizes.begin(), sizes.end());
  // ceil(100 / 30) = 4 chunks of 25
  EXPECT_THAT(sizes, ::testing::ElementsAre(25, 25, 25, 25));
}

TEST(CpuThreadPool, UsesMoreThanOneThreadForManyChunks) {
  ThreadPool pool(2);
  std::mutex m;
  std::set<std::thread::id> ids;
  // Each chunk waits until the other has started too (so one thread cannot run both),
  // giving up after 10 s so a broken pool fails instead of hanging.
  std::atomic<int> started{0};
  pool.parallel_for(2, 1, [&](int64_t, int64_t) {
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    std::lock_guard lock(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(CpuThreadPool, RethrowsTheFirstExceptionAndStaysUsable) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(8, 1,
                                 [](int64_t begin, int64_t) {
                                   if (begin == 0) throw std::runtime_error("chunk 0 failed");
                                 }),
               std::runtime_error);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(10, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 45);
}

}  // namespace
}  // namespace tessera::cpu::test
