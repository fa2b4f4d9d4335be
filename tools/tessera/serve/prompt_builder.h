// From a parsed API request to the Engine's requests: the prompt's token ids (the
// chat template rendered, or a completion prompt tokenized), the token limit checked
// against the context, and one engine Request per choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/request.h"
#include "tools/tessera/serve/api_request.h"
#include "tools/tessera/serve/served_model.h"

namespace tessera::serve {

// OpenAI's default for /v1/completions; chat completions default to the rest of the context.
inline constexpr int64_t kDefaultCompletionTokens = 16;

// Throws a 404 ApiError (code model_not_found) unless `requested` is "" or the served id.
void check_model_name(const ServedModel& model, const std::string& requested);

// The conversation rendered by the model's template, as token ids. 400 when the model
// has no template or the template refuses the conversation (a role it does not know,
// roles that do not alternate), with the template's own message.
std::vector<int32_t> chat_prompt_ids(const ServedModel& model, const std::vector<chat::ChatMessage>& messages);
// A completion prompt's ids: ids as given, or the text tokenized (BOS first when the
// vocabulary adds one, as `tessera generate` does).
std::vector<int32_t> completion_prompt_ids(const ServedModel& model, const PromptInput& prompt);

// The token limit of a choice: `asked`, else `default_tokens` (< 0: the rest of the
// context). 400 (code context_length_exceeded) when the prompt alone, or the prompt
// and `asked`, exceed the context.
int32_t resolve_max_tokens(const ServedModel& model, int64_t prompt_tokens, std::optional<int64_t> asked,
                           int64_t default_tokens);

// The engine request of choice `choice`: the sampling params, with the seed moved on by
// the choice's number so that n choices differ; the stop texts and `stop_tokens`.
Request engine_request(std::vector<int32_t> prompt_ids, const GenerationParams& params, int32_t max_tokens,
                       int32_t choice, const std::vector<int32_t>& stop_tokens);

}  // namespace tessera::serve
