// OpenAI's response objects and stream chunks, exactly as the API writes them:
// chat.completion, chat.completion.chunk, text_completion, the model list, and the
// Server-Sent Events framing of a stream.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/tessera/serve/api_response.h"

namespace tessera::serve {

// {"prompt_tokens", "completion_tokens", "total_tokens"}.
nlohmann::ordered_json usage_json(const Usage& usage);

// A whole chat.completion: each choice's message, finish_reason and logprobs.
nlohmann::ordered_json chat_completion_json(const ResponseHead& head, const std::vector<ChoiceOutput>& choices,
                                            const Usage& usage);

// One chat.completion.chunk with one choice. `delta`: {"role": ...}, {"content": ...} or
// {}; `finish_reason` "" is null. `usage_field`: the chunk carries "usage": null (a
// stream with include_usage).
struct ChatChunk {
  int32_t index = 0;
  nlohmann::ordered_json delta = nlohmann::ordered_json::object();
  std::optional<std::vector<LogprobEntry>> logprobs;
  std::string finish_reason;
};
nlohmann::ordered_json chat_chunk_json(const ResponseHead& head, const ChatChunk& chunk, bool usage_field);
// The last chunk of a stream with include_usage: no choices, the usage.
nlohmann::ordered_json chat_usage_chunk_json(const ResponseHead& head, const Usage& usage);

// A whole text_completion; logprobs in the legacy shape (tokens, token_logprobs,
// top_logprobs, text_offset).
nlohmann::ordered_json completion_json(const ResponseHead& head, const std::vector<ChoiceOutput>& choices,
                                       const Usage& usage);
// One streamed text_completion with one choice (its text so far's new part).
nlohmann::ordered_json completion_chunk_json(const ResponseHead& head, const ChoiceOutput& choice, bool usage_field);
nlohmann::ordered_json completion_usage_chunk_json(const ResponseHead& head, const Usage& usage);

// GET /v1/models: the one model served.
nlohmann::ordered_json models_json(const std::string& id, int64_t created);
nlohmann::ordered_json model_json(const std::string& id, int64_t created);

// "data: <json>\n\n"; invalid UTF-8 (a piece of a character) is replaced by U+FFFD.
std::string sse_event(const nlohmann::ordered_json& data);
inline constexpr const char* kSseDone = "data: [DONE]\n\n";
// The JSON text of a response body, invalid UTF-8 replaced as in sse_event.
std::string json_text(const nlohmann::ordered_json& value);

}  // namespace tessera::serve
