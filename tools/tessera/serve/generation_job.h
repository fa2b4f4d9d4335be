// The engine requests of one API call in flight: submitted through the EngineLoop,
// their events gathered on one queue, each mapped back to its choice. Destroying the
// job cancels what has not finished (a client that went away), so its KV blocks are
// freed at the next step.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "core/engine/event_queue.h"
#include "tools/tessera/serve/call_plan.h"
#include "tools/tessera/serve/engine_loop.h"

namespace tessera::serve {

class GenerationJob {
 public:
  // Submits every choice of `plan` (its requests are moved out). Throws a 400 ApiError
  // when the engine refuses one (the ones already submitted are cancelled).
  GenerationJob(EngineLoop& loop, CallPlan& plan);
  ~GenerationJob();
  GenerationJob(const GenerationJob&) = delete;
  GenerationJob& operator=(const GenerationJob&) = delete;

  // The next event of any choice, with the choice's index; nullopt after `timeout`.
  std::optional<std::pair<int32_t, RequestEvent>> next(std::chrono::milliseconds timeout);
  // Every choice has had its final event.
  bool done() const { return unfinished_.empty(); }
  // Cancels the choices not finished yet.
  void cancel();

 private:
  EngineLoop& loop_;
  std::shared_ptr<EventQueue> events_ = std::make_shared<EventQueue>();
  std::map<RequestId, int32_t> index_of_;
  std::map<RequestId, int32_t> unfinished_;
};

}  // namespace tessera::serve
