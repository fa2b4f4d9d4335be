#include "tools/tessera/serve/shutdown_signals.h"

#include <pthread.h>

#include <csignal>
#include <ctime>

namespace tessera::serve {
namespace {

sigset_t shutdown_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

ShutdownSignals::ShutdownSignals() {
  const sigset_t set = shutdown_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

ShutdownSignals::~ShutdownSignals() {
  stop();
  // The signals stay blocked: one more Ctrl-C while the process ends must not kill it.
}

void ShutdownSignals::stop() {
  stop_ = true;
  if (waiter_.joinable()) waiter_.join();
}

void ShutdownSignals::start(std::function<void(int)> on_signal) {
  waiter_ = std::thread([this, on_signal = std::move(on_signal)] {
    const sigset_t set = shutdown_set();
    const timespec tick{0, 100'000'000};  // 100 ms: how soon the destructor's stop is seen
    while (!stop_) {
      const int signal = sigtimedwait(&set, nullptr, &tick);
      if (signal > 0) {
        on_signal(signal);
        return;
      }
    }
  });
}

}  // namespace tessera::serve
