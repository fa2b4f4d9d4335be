#include "core/engine/event_queue.h"

#include <utility>

namespace tessera {

void EventQueue::push(RequestEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  ready_.notify_one();
}

RequestEvent EventQueue::pop() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return !events_.empty(); });
  RequestEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

std::optional<RequestEvent> EventQueue::try_pop() {
  std::lock_guard lock(mutex_);
  if (events_.empty()) return std::nullopt;
  RequestEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

std::optional<RequestEvent> EventQueue::pop_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return std::nullopt;
  RequestEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

size_t EventQueue::size() const {
  std::lock_guard lock(mutex_);
  return events_.size();
}

std::function<void(const RequestEvent&)> EventQueue::sink(std::shared_ptr<EventQueue> queue) {
  return [queue = std::move(queue)](const RequestEvent& event) { queue->push(event); };
}

}  // namespace tessera
