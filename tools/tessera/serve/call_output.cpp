#include "tools/tessera/serve/call_output.h"

#include "tools/tessera/serve/response_json.h"

namespace tessera::serve {
namespace {

using json = nlohmann::ordered_json;

std::optional<std::vector<LogprobEntry>> one_entry(const std::optional<LogprobEntry>& entry) {
  if (!entry) return std::nullopt;
  return std::vector<LogprobEntry>{*entry};
}

}  // namespace

CallOutput::CallOutput(const CallPlan& plan, const Tokenizer& tokenizer)
    : endpoint_(plan.endpoint),
      head_(plan.head),
      include_usage_(plan.params.include_usage),
      prompt_tokens_(plan.prompt_tokens) {
  for (const PlannedChoice& c : plan.choices) {
    choices_.emplace(c.index, ChoiceState(tokenizer, c.index, c.request.prompt_ids.back(), plan.params.logprobs >= 0));
    if (!c.echo.empty()) echo_[c.index] = c.echo;
  }
}

std::string CallOutput::stream_begin() const {
  std::string out;
  for (const auto& [index, state] : choices_) {
    if (endpoint_ == Endpoint::Chat) {
      ChatChunk role{index, {{"role", "assistant"}, {"content", ""}}, std::nullopt, ""};
      out += sse_event(chat_chunk_json(head_, role, include_usage_));
    } else if (auto it = echo_.find(index); it != echo_.end()) {
      ChoiceOutput echo;
      echo.index = index;
      echo.text = it->second;
      out += sse_event(completion_chunk_json(head_, echo, include_usage_));
    }
  }
  return out;
}

void CallOutput::note_failure(const RequestEvent& event) {
  if (error_ || !event.finished()) return;
  if (event.result->finish == FinishReason::Error) {
    error_ = ApiError(500, "generation failed in the engine: " + event.result->error, "server_error");
  } else if (event.result->finish == FinishReason::Cancelled) {
    error_ = ApiError(503, "the request was cancelled: the server is shutting down", "server_error");
  }
}

std::string CallOutput::stream_event(int32_t index, const RequestEvent& event) {
  ChoiceState& state = choices_.at(index);
  const std::optional<LogprobEntry> entry = state.add(event);
  const bool had_error = error_.has_value();
  note_failure(event);
  if (had_error) return "";  // the stream ended with the first error
  if (error_) return sse_event(error_json(*error_));
  return endpoint_ == Endpoint::Chat ? chat_event(state, event, entry) : completion_event(state, event, entry);
}

std::string CallOutput::chat_event(ChoiceState& state, const RequestEvent& event,
                                   std::optional<LogprobEntry> entry) const {
  std::string out;
  if (!event.text.empty() || entry) {
    ChatChunk content{state.index(), {{"content", event.text}}, one_entry(entry), ""};
    out += sse_event(chat_chunk_json(head_, content, include_usage_));
  }
  if (event.finished()) {
    ChatChunk last{state.index(), json::object(), std::nullopt, api_finish_reason(event.result->finish)};
    out += sse_event(chat_chunk_json(head_, last, include_usage_));
  }
  return out;
}

std::string CallOutput::completion_event(ChoiceState& state, const RequestEvent& event,
                                         std::optional<LogprobEntry> entry) const {
  if (event.text.empty() && !entry && !event.finished()) return "";
  ChoiceOutput chunk;
  chunk.index = state.index();
  chunk.text = event.text;
  chunk.logprobs = one_entry(entry);
  if (chunk.logprobs) {
    // Where this token starts in the choice's text: what came before it.
    chunk.text_offset = static_cast<int64_t>(state.text_size() - event.text.size());
  }
  if (event.finished()) chunk.finish_reason = api_finish_reason(event.result->finish);
  return sse_event(completion_chunk_json(head_, chunk, include_usage_));
}

std::string CallOutput::stream_end() const {
  std::string out;
  if (include_usage_ && !error_) {
    const json chunk = endpoint_ == Endpoint::Chat ? chat_usage_chunk_json(head_, usage())
                                                   : completion_usage_chunk_json(head_, usage());
    out += sse_event(chunk);
  }
  return out + kSseDone;
}

void CallOutput::add(int32_t index, const RequestEvent& event) {
  choices_.at(index).add(event);
  note_failure(event);
}

json CallOutput::response() const {
  if (error_) throw *error_;
  std::vector<ChoiceOutput> choices;
  for (const auto& [index, state] : choices_) {
    auto echo = echo_.find(index);
    choices.push_back(state.output(echo == echo_.end() ? "" : echo->second));
  }
  return endpoint_ == Endpoint::Chat ? chat_completion_json(head_, choices, usage())
                                     : completion_json(head_, choices, usage());
}

Usage CallOutput::usage() const {
  Usage u;
  u.prompt_tokens = prompt_tokens_;
  for (const auto& [index, state] : choices_) {
    if (state.result()) u.completion_tokens += static_cast<int64_t>(state.result()->generated_ids.size());
  }
  return u;
}

}  // namespace tessera::serve
