// OpenAI API requests as the server understands them, after parsing and validation
// (request_parser.h): what to generate and how, before any model is involved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/chat/chat_template.h"
#include "core/sampling/sampling_params.h"

namespace tessera::serve {

// What both endpoints share.
struct GenerationParams {
  std::optional<int64_t> max_tokens;  // max_completion_tokens or max_tokens; nullopt: the endpoint's default
  SamplingParams sampling = openai_defaults();
  std::optional<int64_t> seed;    // nullopt: a random seed per choice
  std::vector<std::string> stop;  // stop texts, at most 4
  int32_t n = 1;                  // choices per prompt
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
  int32_t logprobs = -1;       // alternatives per token with logprobs; -1: no logprobs at all
  bool ignore_eos = false;     // extension: generate through end-of-text (benchmarks)

  // OpenAI's: temperature 1, top_p 1, no top-k, min-p or repetition penalty.
  static SamplingParams openai_defaults();
};

struct ChatCompletionRequest {
  std::string model;  // "" when absent
  std::vector<chat::ChatMessage> messages;
  GenerationParams params;
};

// One prompt of /v1/completions: a text, or token ids used as they are.
struct PromptInput {
  bool is_ids = false;
  std::string text;
  std::vector<int32_t> ids;
};

struct CompletionRequest {
  std::string model;
  std::vector<PromptInput> prompts;  // at least one
  bool echo = false;                 // the choice's text starts with its prompt
  GenerationParams params;
};

}  // namespace tessera::serve
