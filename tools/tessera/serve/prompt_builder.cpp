#include "tools/tessera/serve/prompt_builder.h"

#include <algorithm>

#include "core/chat/template_parser.h"
#include "core/util/error.h"
#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {
namespace {

// A seed of 0 means "random" to the sampler: a request's own 0 maps to a fixed value instead.
constexpr uint64_t kSeedForZero = 0x9E3779B97F4A7C15ull;

uint64_t choice_seed(std::optional<int64_t> seed, int32_t choice) {
  if (!seed) return 0;
  const uint64_t s = static_cast<uint64_t>(*seed) + static_cast<uint64_t>(choice);
  return s == 0 ? kSeedForZero : s;
}

[[noreturn]] void throw_context_exceeded(const std::string& message) {
  throw invalid_request(message, "", "context_length_exceeded");
}

}  // namespace

void check_model_name(const ServedModel& model, const std::string& requested) {
  if (requested.empty() || requested == model.id) return;
  throw ApiError(404, "the model '" + requested + "' does not exist; this server serves '" + model.id + "'",
                 "invalid_request_error", "model", "model_not_found");
}

std::vector<int32_t> chat_prompt_ids(const ServedModel& model, const std::vector<chat::ChatMessage>& messages) {
  if (!model.chat_format) throw invalid_request(model.no_chat_reason, "messages");
  try {
    return model.chat_format->prompt_ids(messages);
  } catch (const chat::TemplateError& e) {
    throw invalid_request(std::string("the model's chat template refused the conversation: ") + e.what(), "messages");
  } catch (const Error& e) {
    throw invalid_request(std::string("the conversation could not be rendered: ") + e.what(), "messages");
  }
}

std::vector<int32_t> completion_prompt_ids(const ServedModel& model, const PromptInput& prompt) {
  if (prompt.is_ids) return prompt.ids;
  std::vector<int32_t> ids = model.tokenizer->encode(prompt.text, model.tokenizer->add_bos());
  if (ids.empty())
    throw invalid_request("the prompt is empty and the vocabulary has no BOS token to start from", "prompt");
  return ids;
}

int32_t resolve_max_tokens(const ServedModel& model, int64_t prompt_tokens, std::optional<int64_t> asked,
                           int64_t default_tokens) {
  const std::string limit = "this model's maximum context length is " + std::to_string(model.n_ctx) + " tokens";
  if (prompt_tokens > model.n_ctx) {
    throw_context_exceeded(limit + ", but the prompt has " + std::to_string(prompt_tokens) + " tokens; shorten it");
  }
  const int64_t room = model.n_ctx - prompt_tokens;
  if (!asked && default_tokens < 0 && room == 0) {
    throw_context_exceeded(limit + " and the prompt fills it (" + std::to_string(prompt_tokens) +
                           " tokens): no room is left for an answer");
  }
  if (asked && *asked > room) {
    throw_context_exceeded(limit + ", but " + std::to_string(prompt_tokens + *asked) + " tokens were requested (" +
                           std::to_string(prompt_tokens) + " in the prompt, " + std::to_string(*asked) +
                           " in the completion); shorten the prompt or lower max_tokens");
  }
  const int64_t tokens = asked ? *asked : default_tokens < 0 ? room : std::min(default_tokens, room);
  return static_cast<int32_t>(tokens);
}

Request engine_request(std::vector<int32_t> prompt_ids, const GenerationParams& params, int32_t max_tokens,
                       int32_t choice, const std::vector<int32_t>& stop_tokens) {
  Request r;
  r.prompt_ids = std::move(prompt_ids);
  r.sampling = params.sampling;
  r.sampling.seed = choice_seed(params.seed, choice);
  r.max_tokens = max_tokens;
  r.stop.ignore_eos = params.ignore_eos;
  r.stop.stop_texts = params.stop;
  if (!params.ignore_eos) r.stop.stop_token_ids = stop_tokens;
  r.logprobs = params.logprobs;
  return r;
}

}  // namespace tessera::serve
