// The results the server sends back, before they become JSON (response_json.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::serve {

// A token with its log-probability as the API shows it: the token's text (its
// bytes; a piece of a UTF-8 character stays as it is) and the top alternatives.
struct LogprobEntry {
  std::string token;
  float logprob = 0.0f;
  std::vector<std::pair<std::string, float>> top;  // (text, logprob), most likely first
};

// What every response object starts with.
struct ResponseHead {
  std::string id;       // "chatcmpl-..." / "cmpl-..."
  int64_t created = 0;  // Unix seconds
  std::string model;
};

struct ChoiceOutput {
  int32_t index = 0;
  std::string text;
  std::string finish_reason;                          // "stop" or "length"
  std::optional<std::vector<LogprobEntry>> logprobs;  // nullopt: not asked for
  int64_t text_offset = 0;  // /v1/completions logprobs: where the generated text starts (echo)
};

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

}  // namespace tessera::serve
