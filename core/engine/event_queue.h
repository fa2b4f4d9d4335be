// A thread-safe queue of request events: the Engine's callbacks push into it on the
// stepping thread, any other thread pops (blocking or not).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "core/engine/request.h"

namespace tessera {

class EventQueue {
 public:
  void push(RequestEvent event);
  // Waits for the next event.
  RequestEvent pop();
  std::optional<RequestEvent> try_pop();
  // Waits up to `timeout` for the next event; nullopt when none came.
  std::optional<RequestEvent> pop_for(std::chrono::milliseconds timeout);
  size_t size() const;

  // A Request::on_event that pushes into `queue` (kept alive by the callback).
  static std::function<void(const RequestEvent&)> sink(std::shared_ptr<EventQueue> queue);

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<RequestEvent> events_;
};

}  // namespace tessera
