#include "tools/tessera/serve/engine_loop.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include "core/util/error.h"
#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {

EngineLoop::EngineLoop(Engine& engine, ServeMetrics& metrics)
    : engine_(engine), metrics_(metrics), thread_([this] { run(); }) {}

EngineLoop::~EngineLoop() { stop(); }

RequestId EngineLoop::submit(Request request, std::shared_ptr<EventQueue> events) {
  {
    std::lock_guard lock(mutex_);
    if (!failure_.empty()) throw ApiError(500, "the engine has stopped: " + failure_, "server_error");
    if (stopping_ || draining_) throw ApiError(503, "the server is shutting down", "server_error");
  }
  request.on_event = [this, events = std::move(events)](const RequestEvent& e) {
    if (e.finished()) {
      metrics_.on_finished(*e.result);
      finished(e.id);
    }
    events->push(e);
  };
  // The id is in in_flight_ before the engine thread can finish it: its lock is held
  // across submit (the engine thread takes it only outside the engine's calls).
  std::lock_guard lock(mutex_);
  const RequestId id = engine_.submit(std::move(request));
  in_flight_.insert(id);
  wake_.notify_one();
  return id;
}

void EngineLoop::finished(RequestId id) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(id);
}

void EngineLoop::cancel(RequestId id) {
  engine_.cancel(id);
  std::lock_guard lock(mutex_);
  wake_.notify_one();
}

void EngineLoop::cancel_all() {
  std::lock_guard lock(mutex_);
  draining_ = true;
  for (RequestId id : in_flight_) engine_.cancel(id);
  wake_.notify_one();
}

void EngineLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

std::string EngineLoop::failure() const {
  std::lock_guard lock(mutex_);
  return failure_;
}

void EngineLoop::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || engine_.has_work(); });
      if (stopping_) return;
    }
    try {
      step_once();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tessera serve: error: the engine stopped: %s\n", e.what());
      std::lock_guard lock(mutex_);
      failure_ = e.what();
      return;
    }
  }
}

void EngineLoop::step_once() {
  const bool progressed = engine_.step();
  metrics_.publish(engine_.stats());
  if (!progressed) {
    // Work that cannot run yet (cancellations only, or nothing fits): do not spin.
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, std::chrono::milliseconds(2));
  }
}

}  // namespace tessera::serve
