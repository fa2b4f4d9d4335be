// Persistent workers woken per dispatch. A worker spins briefly before sleeping, so the
// back-to-back kernels of a decode step do not pay a futex wake-up each.
#include "backends/cpu/thread_pool.h"

#include <algorithm>
#include <utility>

namespace tessera::cpu {
namespace {

// Spin iterations before a thread blocks on a condition variable (a few microseconds).
constexpr int kSpinIterations = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  if (n_threads <= 0) n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n_threads_ = n_threads;
  workers_.reserve(static_cast<size_t>(n_threads_ - 1));
  for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  job_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run(Body body, int64_t n, int64_t grain) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  // A few chunks per thread balance the load when another process takes a core.
  const int64_t max_chunks = static_cast<int64_t>(n_threads_) * 4;
  const int64_t n_chunks = std::min((n + grain - 1) / grain, max_chunks);
  if (n_threads_ == 1 || n_chunks <= 1) {
    body.call(body.fn, 0, n);
    return;
  }
  body_ = body;
  n_ = n;
  chunk_ = (n + n_chunks - 1) / n_chunks;
  n_chunks_ = (n + chunk_ - 1) / chunk_;
  next_chunk_.store(0, std::memory_order_relaxed);
  error_ = nullptr;
  busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  job_ready_.notify_all();

  run_chunks();

  for (int spin = 0; spin < kSpinIterations; ++spin) {
    if (busy_workers_.load(std::memory_order_acquire) == 0) break;
    cpu_relax();
  }
  if (busy_workers_.load(std::memory_order_acquire) != 0) {
    std::unique_lock lock(mutex_);
    job_done_.wait(lock, [this] { return busy_workers_.load(std::memory_order_acquire) == 0; });
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::run_chunks() {
  for (;;) {
    const int64_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
    if (c >= n_chunks_) return;
    const int64_t begin = c * chunk_;
    const int64_t end = std::min(begin + chunk_, n_);
    try {
      body_.call(body_.fn, begin, end);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

bool ThreadPool::wait_for_job(uint64_t seen) {
  for (int spin = 0; spin < kSpinIterations; ++spin) {
    if (generation_.load(std::memory_order_acquire) != seen) return true;
    if (stopping_.load(std::memory_order_relaxed)) return false;
    cpu_relax();
  }
  std::unique_lock lock(mutex_);
  job_ready_.wait(lock, [&] {
    return stopping_.load() || generation_.load(std::memory_order_acquire) != seen;
  });
  return generation_.load(std::memory_order_acquire) != seen;
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    if (!wait_for_job(seen)) return;
    seen = generation_.load(std::memory_order_acquire);
    run_chunks();
    if (busy_workers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);  // pairs with the caller's predicate check
      job_done_.notify_one();
    }
  }
}

}  // namespace tessera::cpu
