// What one API call runs: its engine requests (one per choice, n per prompt), the
// response's head, and the usage's prompt tokens. Built on the handler thread from
// a parsed request, before anything is submitted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/request.h"
#include "tools/tessera/serve/api_request.h"
#include "tools/tessera/serve/api_response.h"
#include "tools/tessera/serve/served_model.h"

namespace tessera::serve {

enum class Endpoint { Chat, Completion };

struct PlannedChoice {
  int32_t index = 0;
  Request request;
  std::string echo;  // /v1/completions with echo: the prompt the choice's text starts with
};

struct CallPlan {
  Endpoint endpoint = Endpoint::Chat;
  ResponseHead head;
  GenerationParams params;
  std::vector<PlannedChoice> choices;
  int64_t prompt_tokens = 0;  // each prompt once, however many choices it has
};

// Throws ApiError: 404 for another model's name, 400 for what the template refuses or
// a prompt and limit that do not fit the context.
CallPlan plan_chat_call(const ServedModel& model, const ChatCompletionRequest& request);
CallPlan plan_completion_call(const ServedModel& model, const CompletionRequest& request);

// "<prefix>-" and 24 random letters and digits.
std::string new_response_id(const std::string& prefix);

}  // namespace tessera::serve
