// SIGINT and SIGTERM for a server: blocked in every thread (the mask is inherited by
// the threads started after this object), and received by a thread of its own that
// calls the handler, in ordinary code rather than in a signal handler.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace tessera::serve {

class ShutdownSignals {
 public:
  // Blocks SIGINT and SIGTERM in the calling thread: construct before any other thread.
  ShutdownSignals();
  // Stops the waiting thread (the signals stay blocked).
  ~ShutdownSignals();
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Starts waiting; `on_signal` runs once, on the waiting thread, with the signal's number.
  void start(std::function<void(int)> on_signal);
  // Stops waiting; returns once a running `on_signal` has returned. Idempotent.
  void stop();

 private:
  std::atomic<bool> stop_{false};
  std::thread waiter_;
};

}  // namespace tessera::serve
