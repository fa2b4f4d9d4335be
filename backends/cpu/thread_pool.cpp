// Persistent workers woken per dispatch. A worker spins a while before sleeping, so the
// back-to-back kernels of a decode step do not pay a futex wake-up each.
#include "backends/cpu/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace tessera::cpu {
namespace {

// How long a thread spins before it blocks on a condition variable. Longer than the gap
// between two decode steps (sampling, the next step's set-up), which a few thousand
// pauses (about 23 us where a pause takes 11 ns) did not cover: a TinyLlama-shaped
// decode step then began with its worker asleep, and the first kernel waited ~80 us
// for the futex wake-up.
constexpr auto kSpinTime = std::chrono::microseconds(300);

// Pauses between two looks at the clock.
constexpr int kPausesPerClockRead = 16;

// Chunks of a kShares job at most, so that a chunk index fits the 32 bits of a Share half.
constexpr int64_t kMaxShareChunks = int64_t{1} << 30;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until done() holds or kSpinTime has passed.
template <class Done>
void spin_until(Done&& done) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < kPausesPerClockRead; ++i) {
      if (done()) return;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= until) return;
  }
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  if (n_threads <= 0) n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n_threads_ = n_threads;
  shares_ = std::make_unique<Share[]>(static_cast<size_t>(n_threads_));
  workers_.reserve(static_cast<size_t>(n_threads_ - 1));
  for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  job_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run(Body body, int64_t n, int64_t grain, Split split) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int64_t chunk = grain;
  if (split == Split::kChunks) {
    // A few chunks per thread balance the load when another process takes a core.
    const int64_t max_chunks = static_cast<int64_t>(n_threads_) * 4;
    const int64_t n_chunks = std::min((n + grain - 1) / grain, max_chunks);
    chunk = (n + n_chunks - 1) / n_chunks;
  } else {
    chunk = std::max(chunk, (n + kMaxShareChunks - 1) / kMaxShareChunks);  // chunk indices fit 32 bits
  }
  const int64_t n_chunks = (n + chunk - 1) / chunk;
  if (n_threads_ == 1 || n_chunks <= 1) {
    body.call(body.fn, 0, n);
    return;
  }
  body_ = body;
  n_ = n;
  chunk_ = chunk;
  n_chunks_ = n_chunks;
  split_ = split;
  if (split == Split::kChunks) {
    next_chunk_.store(0, std::memory_order_relaxed);
  } else {
    for (int t = 0; t < n_threads_; ++t) {
      const auto front = static_cast<uint64_t>(n_chunks * t / n_threads_);
      const auto back = static_cast<uint64_t>(n_chunks * (t + 1) / n_threads_);
      shares_[t].range.store(front << 32 | back, std::memory_order_relaxed);
    }
  }
  error_ = nullptr;
  busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  job_ready_.notify_all();

  run_chunks(0);

  spin_until([this] { return busy_workers_.load(std::memory_order_acquire) == 0; });
  if (busy_workers_.load(std::memory_order_acquire) != 0) {
    std::unique_lock lock(mutex_);
    job_done_.wait(lock, [this] { return busy_workers_.load(std::memory_order_acquire) == 0; });
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::run_chunks(int thread) {
  if (split_ == Split::kChunks) {
    for (;;) {
      const int64_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
      if (c >= n_chunks_) return;
      run_chunk(c);
    }
  }
  for (int64_t c; (c = take_own_chunk(thread)) >= 0;) run_chunk(c);
  for (int64_t c; (c = take_other_chunk()) >= 0;) run_chunk(c);
}

void ThreadPool::run_chunk(int64_t c) {
  const int64_t begin = c * chunk_;
  const int64_t end = std::min(begin + chunk_, n_);
  try {
    body_.call(body_.fn, begin, end);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

int64_t ThreadPool::take_own_chunk(int thread) {
  std::atomic<uint64_t>& range = shares_[thread].range;
  uint64_t r = range.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t front = r >> 32, back = r & 0xffffffffu;
    if (front >= back) return -1;
    if (range.compare_exchange_weak(r, (front + 1) << 32 | back, std::memory_order_relaxed)) {
      return static_cast<int64_t>(front);
    }
  }
}

int64_t ThreadPool::take_other_chunk() {
  for (;;) {
    int most = -1;
    uint64_t most_left = 0, r = 0;
    for (int t = 0; t < n_threads_; ++t) {
      const uint64_t v = shares_[t].range.load(std::memory_order_relaxed);
      const uint64_t front = v >> 32, back = v & 0xffffffffu;
      if (back > front && back - front > most_left) most = t, most_left = back - front, r = v;
    }
    if (most < 0) return -1;
    const uint64_t back = (r & 0xffffffffu) - 1;
    if (shares_[most].range.compare_exchange_weak(r, (r >> 32) << 32 | back, std::memory_order_relaxed)) {
      return static_cast<int64_t>(back);
    }
  }
}

bool ThreadPool::wait_for_job(uint64_t seen) {
  spin_until([&] {
    return generation_.load(std::memory_order_acquire) != seen || stopping_.load(std::memory_order_relaxed);
  });
  if (generation_.load(std::memory_order_acquire) != seen) return true;
  if (stopping_.load(std::memory_order_relaxed)) return false;
  std::unique_lock lock(mutex_);
  job_ready_.wait(lock, [&] {
    return stopping_.load() || generation_.load(std::memory_order_acquire) != seen;
  });
  return generation_.load(std::memory_order_acquire) != seen;
}

void ThreadPool::worker_loop(int thread) {
  uint64_t seen = 0;
  for (;;) {
    if (!wait_for_job(seen)) return;
    seen = generation_.load(std::memory_order_acquire);
    run_chunks(thread);
    if (busy_workers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);  // pairs with the caller's predicate check
      job_done_.notify_one();
    }
  }
}

}  // namespace tessera::cpu
