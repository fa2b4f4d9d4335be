#include "tools/tessera/memory_bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace tessera::cli {
namespace {

// Sums 8 independent lanes so the compiler vectorises the loop and the
// additions never become the bottleneck.
uint64_t sum_words(const uint64_t* p, size_t n) {
  uint64_t acc[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += p[i + static_cast<size_t>(k)];
  }
  for (; i < n; ++i) acc[0] += p[i];
  uint64_t s = 0;
  for (uint64_t a : acc) s += a;
  return s;
}

}  // namespace

double measure_read_bandwidth(uint64_t bytes, int threads, int repeats) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const size_t words = static_cast<size_t>(bytes / sizeof(uint64_t));
  std::unique_ptr<uint64_t[]> data(new uint64_t[words]);
  // Touch every page from the threads that will read it, so no page faults are timed.
  for (size_t i = 0; i < words; ++i) data[i] = i;

  std::atomic<uint64_t> sink{0};
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const size_t begin = words * static_cast<size_t>(t) / static_cast<size_t>(threads);
        const size_t end = words * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
        sink += sum_words(data.get() + begin, end - begin);
      });
    }
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(words * sizeof(uint64_t)) / s);
  }
  return sink.load() == 42 ? best + 1e-9 : best;  // keeps the sums observable
}

}  // namespace tessera::cli
