#include "tools/tessera/serve/generation_handler.h"

#include <chrono>
#include <memory>
#include <string>

#include "core/util/error.h"
#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/call_output.h"
#include "tools/tessera/serve/generation_job.h"
#include "tools/tessera/serve/request_parser.h"
#include "tools/tessera/serve/response_json.h"

namespace tessera::serve {
namespace {

constexpr std::chrono::milliseconds kPollInterval{50};

// Counts a call from its start to the end of its response (a stream's last write).
class CallScope {
 public:
  explicit CallScope(CallCounter& calls) : calls_(calls) { calls.enter(); }
  ~CallScope() { calls_.leave(); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  CallCounter& calls_;
};

// The body, refused with 413 past `max_body`: httplib checks a Content-Length first
// (skipping the body and setting 413 on `response`); a chunked upload is counted here.
std::string read_body(const httplib::ContentReader& reader, httplib::Response& response, size_t max_body) {
  std::string body;
  bool too_large = false;
  const bool read = reader([&](const char* data, size_t length) {
    if (body.size() + length > max_body) {
      too_large = true;
      return false;
    }
    body.append(data, length);
    return true;
  });
  if (too_large || response.status == 413) throw error_for_status(413);
  if (!read) throw invalid_request("the request body could not be read");
  return body;
}

CallPlan plan_call(const GenerationContext& c, Endpoint endpoint, const std::string& body) {
  return endpoint == Endpoint::Chat ? plan_chat_call(c.model, parse_chat_request(body))
                                    : plan_completion_call(c.model, parse_completion_request(body));
}

ApiError engine_stopped(const EngineLoop& loop) {
  return ApiError(500, "the engine has stopped: " + loop.failure(), "server_error");
}

// Every choice done (or one failed): the whole response object.
void respond_whole(const GenerationContext& c, GenerationJob& job, CallOutput& output, const void* key,
                   httplib::Response& response) {
  while (!job.done() && !output.error()) {
    if (auto event = job.next(kPollInterval)) {
      output.add(event->first, event->second);
    } else if (!c.loop.failure().empty()) {
      throw engine_stopped(c.loop);
    }
  }
  job.cancel();  // the siblings of a failed choice
  const Usage usage = output.usage();
  c.log.tokens(key, usage.prompt_tokens, usage.completion_tokens);
  response.set_content(json_text(output.response()), "application/json");
}

// The state of one stream, shared by the content provider's calls.
struct StreamState {
  std::unique_ptr<GenerationJob> job;
  std::unique_ptr<CallOutput> output;
  const void* key = nullptr;  // the request, for its log line
  std::shared_ptr<CallScope> scope;
  bool begun = false;

  // The stream is over (sent, failed or abandoned): its tokens go to the log line,
  // which is written when the provider returns.
  bool end(const GenerationContext& c, bool ok) {
    if (!ok) job->cancel();
    const Usage usage = output->usage();
    c.log.tokens(key, usage.prompt_tokens, usage.completion_tokens);
    return ok;
  }
};

bool write(httplib::DataSink& sink, const std::string& text) {
  return text.empty() || (sink.is_writable() && sink.write(text.data(), text.size()));
}

// One call of the content provider: the opening, or the chunks of one event, or a
// check that the client is still there. false ends the response (the client is gone).
bool stream_step(const GenerationContext& c, StreamState& s, httplib::DataSink& sink) {
  if (!s.begun) {
    s.begun = true;
    return write(sink, s.output->stream_begin()) || s.end(c, false);
  }
  auto event = s.job->next(kPollInterval);
  if (!event) {
    if (!sink.is_writable()) return s.end(c, false);
    if (c.loop.failure().empty()) return true;
    const bool ok = write(sink, sse_event(error_json(engine_stopped(c.loop))) + kSseDone);
    sink.done();
    return s.end(c, ok);
  }
  if (!write(sink, s.output->stream_event(event->first, event->second))) return s.end(c, false);
  if (s.output->error()) {
    s.job->cancel();  // the failed choice's siblings
    const bool ok = write(sink, kSseDone);
    sink.done();
    return s.end(c, ok);
  }
  if (s.job->done()) {
    const bool ok = write(sink, s.output->stream_end());
    sink.done();
    return s.end(c, ok);
  }
  return true;
}

void respond_stream(const GenerationContext& c, std::unique_ptr<GenerationJob> job, std::unique_ptr<CallOutput> output,
                    const void* key, httplib::Response& response) {
  auto state = std::make_shared<StreamState>(
      StreamState{std::move(job), std::move(output), key, std::make_shared<CallScope>(c.calls)});
  response.set_header("Cache-Control", "no-cache");
  response.set_chunked_content_provider(
      "text/event-stream", [c, state](size_t, httplib::DataSink& sink) { return stream_step(c, *state, sink); },
      [state](bool) {
        state->job.reset();  // cancels what has not finished (the server stopping)
        state->scope.reset();
      });
}

}  // namespace

void CallCounter::enter() {
  std::lock_guard lock(mutex_);
  ++active_;
}

void CallCounter::leave() {
  std::lock_guard lock(mutex_);
  if (--active_ == 0) idle_.notify_all();
}

bool CallCounter::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout, [&] { return active_ == 0; });
}

void respond_error(httplib::Response& response, const ApiError& error) {
  response.status = error.status();
  response.set_content(json_text(error_json(error)), "application/json");
}

void handle_generation(const GenerationContext& c, Endpoint endpoint, const httplib::Request& request,
                       httplib::Response& response, const httplib::ContentReader& reader) {
  const CallScope scope(c.calls);
  try {
    CallPlan plan = plan_call(c, endpoint, read_body(reader, response, c.max_body));
    auto output = std::make_unique<CallOutput>(plan, *c.model.tokenizer);
    auto job = std::make_unique<GenerationJob>(c.loop, plan);  // moves the requests out of the plan
    if (plan.params.stream) {
      respond_stream(c, std::move(job), std::move(output), &request, response);
    } else {
      respond_whole(c, *job, *output, &request, response);
    }
  } catch (const ApiError& e) {
    respond_error(response, e);
  } catch (const Error& e) {
    respond_error(response, ApiError(500, e.what(), "server_error"));
  }
}

}  // namespace tessera::serve
