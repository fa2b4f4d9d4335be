// A small persistent thread pool for the CPU kernels: one parallel-for over an index
// range at a time, the calling thread working alongside n_threads - 1 workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace tessera::cpu {

class ThreadPool {
 public:
  // n_threads >= 1 counts the caller; 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Calls fn(begin, end) on disjoint chunks that together cover [0, n) and returns when
  // all are done. Chunks hold at least `grain` indices (the last may hold fewer). The
  // first exception thrown by fn is rethrown here after every chunk has finished.
  // Not reentrant: fn must not call parallel_for on the same pool.
  template <class Fn>
  void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
    run(body_of(fn), n, grain, Split::kChunks);
  }

  // The same over chunks of exactly `chunk` indices (the last may hold fewer), dealt for
  // streaming: thread t takes the chunks of the t-th contiguous share of [0, n) in order,
  // so its reads (and the hardware's read-ahead) run through one region of memory; a
  // thread done with its own share then takes chunks from the back of the share with the
  // most left, so that one thread slowed by another process does not hold up the others.
  template <class Fn>
  void parallel_for_shares(int64_t n, int64_t chunk, Fn&& fn) {
    run(body_of(fn), n, chunk, Split::kShares);
  }

 private:
  // A type-erased reference to the loop body, valid for one dispatch.
  struct Body {
    const void* fn;
    void (*call)(const void* fn, int64_t begin, int64_t end);
  };

  enum class Split { kChunks, kShares };

  // One share of a kShares job: chunk indices [front, back) packed as front << 32 | back,
  // on a cache line of its own; the owner takes the front, other threads the back.
  struct alignas(64) Share {
    std::atomic<uint64_t> range{0};
  };

  template <class Fn>
  static Body body_of(Fn& fn) {
    using F = std::remove_reference_t<Fn>;
    return {static_cast<const void*>(&fn),
            [](const void* f, int64_t b, int64_t e) { (*static_cast<const F*>(f))(b, e); }};
  }

  void run(Body body, int64_t n, int64_t grain, Split split);
  void run_chunks(int thread);  // claims chunks of the current job until none are left
  void run_chunk(int64_t c);    // calls the body on chunk c, keeping its first exception
  int64_t take_own_chunk(int thread);
  int64_t take_other_chunk();
  void worker_loop(int thread);
  bool wait_for_job(uint64_t seen);  // false when the pool is stopping

  int n_threads_;
  std::vector<std::thread> workers_;

  // The current job: set by run() before the generation is bumped.
  Body body_{};
  int64_t n_ = 0;
  int64_t chunk_ = 1;
  int64_t n_chunks_ = 0;
  Split split_ = Split::kChunks;
  std::atomic<int64_t> next_chunk_{0};    // kChunks: the next chunk to take
  std::unique_ptr<Share[]> shares_;       // kShares: one per thread
  std::exception_ptr error_;  // first exception of the job, guarded by mutex_

  std::mutex mutex_;
  std::condition_variable job_ready_;
  std::condition_variable job_done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> busy_workers_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace tessera::cpu
