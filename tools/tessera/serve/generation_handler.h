// POST /v1/chat/completions and /v1/completions: the body read within the limit,
// parsed and planned, the choices submitted, then either one JSON response when all
// are done or a stream of Server-Sent Events. A client that goes away mid-stream has
// its requests cancelled at the next step (found when a write fails or the socket is
// seen closed, checked before each chunk and every 50 ms while waiting).
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/call_plan.h"
#include "tools/tessera/serve/engine_loop.h"
#include "tools/tessera/serve/request_log.h"
#include "tools/tessera/serve/served_model.h"

namespace tessera::serve {

// The calls being answered, for a shutdown that lets them send their last events.
class CallCounter {
 public:
  void enter();
  void leave();
  // Waits until no call is being answered, or `timeout`; true when none is.
  bool wait_idle(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  int64_t active_ = 0;
};

struct GenerationContext {
  const ServedModel& model;
  EngineLoop& loop;
  RequestLog& log;
  CallCounter& calls;
  size_t max_body;
};

// Answers the request (errors included: OpenAI's error object with its status).
void handle_generation(const GenerationContext& context, Endpoint endpoint, const httplib::Request& request,
                       httplib::Response& response, const httplib::ContentReader& reader);

// Sets `response` to `error`'s status and JSON body.
void respond_error(httplib::Response& response, const ApiError& error);

}  // namespace tessera::serve
