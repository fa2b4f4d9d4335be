#include "tools/tessera/serve/generation_job.h"

#include "core/util/error.h"
#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {

GenerationJob::GenerationJob(EngineLoop& loop, CallPlan& plan) : loop_(loop) {
  for (PlannedChoice& c : plan.choices) {
    RequestId id = -1;
    try {
      id = loop_.submit(std::move(c.request), events_);
    } catch (const Error& e) {
      cancel();
      throw invalid_request(e.what());
    } catch (const ApiError&) {
      cancel();
      throw;
    }
    index_of_[id] = c.index;
    unfinished_[id] = c.index;
  }
}

GenerationJob::~GenerationJob() { cancel(); }

void GenerationJob::cancel() {
  for (const auto& [id, index] : unfinished_) loop_.cancel(id);
}

std::optional<std::pair<int32_t, RequestEvent>> GenerationJob::next(std::chrono::milliseconds timeout) {
  std::optional<RequestEvent> event = events_->pop_for(timeout);
  if (!event) return std::nullopt;
  if (event->finished()) unfinished_.erase(event->id);
  return std::make_pair(index_of_.at(event->id), std::move(*event));
}

}  // namespace tessera::serve
