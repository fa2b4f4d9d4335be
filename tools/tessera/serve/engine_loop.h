// The thread that runs the Engine: it steps while there is work and sleeps on a
// condition variable when there is none. HTTP handler threads submit and cancel
// through it; each request's events go to the EventQueue its caller passed (the
// engine thread only pushes, so a slow client never holds it up).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/engine/engine.h"
#include "core/engine/event_queue.h"
#include "tools/tessera/serve/serve_metrics.h"

namespace tessera::serve {

class EngineLoop {
 public:
  // `engine` and `metrics` must outlive the loop. Starts the thread.
  EngineLoop(Engine& engine, ServeMetrics& metrics);
  // Stops the thread (requests in flight are dropped without final events).
  ~EngineLoop();
  EngineLoop(const EngineLoop&) = delete;
  EngineLoop& operator=(const EngineLoop&) = delete;

  // Queues `request`; its events (RequestEvent, the last one finished()) are pushed into
  // `events`. Thread-safe. Throws tessera::Error when the engine refuses the request
  // (Engine::submit's checks); ApiError 500 when the engine thread has failed, 503 when
  // the server is shutting down.
  RequestId submit(Request request, std::shared_ptr<EventQueue> events);
  // Ends a request at the next step (its final event says Cancelled); thread-safe.
  void cancel(RequestId id);
  // Cancels every request in flight and refuses new ones (shutting down).
  void cancel_all();
  // Stops and joins the thread; idempotent.
  void stop();

  // Why the engine thread stopped on its own ("" while it runs): a step threw.
  std::string failure() const;

 private:
  void run();
  void step_once();
  void finished(RequestId id);

  Engine& engine_;
  ServeMetrics& metrics_;
  mutable std::mutex mutex_;  // guards the members below; taken after the engine's own lock, never inside it
  std::condition_variable wake_;
  bool stopping_ = false;
  bool draining_ = false;  // cancel_all: refuse new requests
  std::string failure_;
  std::set<RequestId> in_flight_;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace tessera::serve
