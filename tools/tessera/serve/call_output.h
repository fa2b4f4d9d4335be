// What a call sends back, built from its choices' events: the chunks of a stream
// (Server-Sent Events, OpenAI's chunk format) or the whole response object, and the
// error when a choice failed in the engine. No HTTP here.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/tokenizer/tokenizer.h"
#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/call_plan.h"
#include "tools/tessera/serve/choice_state.h"

namespace tessera::serve {

class CallOutput {
 public:
  // Reads `plan` before its requests are submitted (moved out); `tokenizer` must
  // outlive the output.
  CallOutput(const CallPlan& plan, const Tokenizer& tokenizer);

  // A stream: its opening (chat: each choice's role chunk; completions with echo: the
  // prompts), the chunks of one event ("" when it adds nothing to send), and its end
  // (the usage chunk when asked, then [DONE]). A failed choice's event is an error
  // event ({"error": {...}}); the stream should end after it.
  std::string stream_begin() const;
  std::string stream_event(int32_t index, const RequestEvent& event);
  std::string stream_end() const;

  // Without streaming: take every event, then the response object. response() throws
  // the error of a failed choice.
  void add(int32_t index, const RequestEvent& event);
  nlohmann::ordered_json response() const;

  // The first choice that failed: 500 for an engine error, 503 for a request cancelled
  // by the server's shutdown.
  const std::optional<ApiError>& error() const { return error_; }
  Usage usage() const;

 private:
  std::string chat_event(ChoiceState& state, const RequestEvent& event, std::optional<LogprobEntry> entry) const;
  std::string completion_event(ChoiceState& state, const RequestEvent& event, std::optional<LogprobEntry> entry) const;
  void note_failure(const RequestEvent& event);

  Endpoint endpoint_;
  ResponseHead head_;
  bool include_usage_;
  int64_t prompt_tokens_;
  std::map<int32_t, ChoiceState> choices_;
  std::map<int32_t, std::string> echo_;
  std::optional<ApiError> error_;
};

}  // namespace tessera::serve
