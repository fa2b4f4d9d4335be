// The CPU backend's thread pool: coverage of the range, chunk sizes, shares, exceptions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
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

TEST(CpuThreadPool, SharesVisitEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t chunk : {1, 7}) {
      for (int64_t n : {0, 1, 5, 1000}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.parallel_for_shares(n, chunk, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n << ", chunk " << chunk << ", " << threads
                                       << " threads";
        }
      }
    }
  }
}

TEST(CpuThreadPool, SharesComeInChunksOfTheGivenSize) {
  ThreadPool pool(3);
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  pool.parallel_for_shares(100, 30, [&](int64_t begin, int64_t end) {
    std::lock_guard lock(m);
    chunks.emplace_back(begin, end);
  });
  std::sort(chunks.begin(), chunks.end());
  using Range = std::pair<int64_t, int64_t>;
  EXPECT_THAT(chunks, ::testing::ElementsAre(Range{0, 30}, Range{30, 60}, Range{60, 90}, Range{90, 100}));
}

TEST(CpuThreadPool, TheCallerTakesTheFirstShareInOrder) {
  ThreadPool pool(2);
  std::mutex m;
  std::vector<int64_t> mine;  // chunks the calling thread ran, in its order
  const auto caller = std::this_thread::get_id();
  pool.parallel_for_shares(64, 1, [&](int64_t begin, int64_t) {
    if (std::this_thread::get_id() != caller) return;
    std::lock_guard lock(m);
    mine.push_back(begin);
  });
  // Its own share is chunks [0, 32): taken from the front, one after the other; whatever it
  // took over from the other share lies in [32, 64).
  ASSERT_FALSE(mine.empty());
  std::vector<int64_t> own;
  for (int64_t c : mine)
    if (c < 32) own.push_back(c);
  ASSERT_FALSE(own.empty());
  for (size_t i = 0; i < own.size(); ++i) EXPECT_EQ(own[i], static_cast<int64_t>(i)) << "position " << i;
}

TEST(CpuThreadPool, ASlowShareIsFinishedByTheOtherThreadsFromItsBack) {
  ThreadPool pool(2);
  // Chunk 0 (the caller's first) waits until every other chunk is done, so the worker has
  // to take over the rest of the caller's share (giving up after 10 s: a pool that does
  // not fails the count instead of hanging).
  constexpr int64_t kChunks = 16;
  std::atomic<int64_t> done{0};
  std::mutex m;
  std::vector<int64_t> taken_over;
  const auto caller = std::this_thread::get_id();
  pool.parallel_for_shares(kChunks, 1, [&](int64_t begin, int64_t) {
    if (begin == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (done.load() < kChunks - 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    } else if (begin < kChunks / 2 && std::this_thread::get_id() != caller) {
      std::lock_guard lock(m);
      taken_over.push_back(begin);
    }
    done.fetch_add(1);
  });
  EXPECT_EQ(done.load(), kChunks);
  // Chunks 1..7 of the caller's share, by the worker, from the back.
  EXPECT_THAT(taken_over, ::testing::ElementsAre(7, 6, 5, 4, 3, 2, 1));
}

TEST(CpuThreadPool, SharesRethrowTheFirstExceptionAndStayUsable) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for_shares(8, 1,
                                        [](int64_t begin, int64_t) {
                                          if (begin == 5) throw std::runtime_error("chunk 5 failed");
                                        }),
               std::runtime_error);
  std::atomic<int64_t> sum{0};
  pool.parallel_for_shares(10, 3, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 45);
}

}  // namespace
}  // namespace tessera::cpu::test
