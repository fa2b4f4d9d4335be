// Reads the JSON bodies of POST /v1/chat/completions and /v1/completions into
// api_request.h's structs, checking every field's type and range as OpenAI does. Fields
// it does not know are ignored (clients send "user", "store", ...); fields whose
// feature Tessera lacks (tools, logit_bias, response_format other than text, suffix)
// are refused rather than silently dropped. Every refusal is a 400 ApiError.
#pragma once

#include <string_view>

#include "tools/tessera/serve/api_request.h"

namespace tessera::serve {

ChatCompletionRequest parse_chat_request(std::string_view body);
CompletionRequest parse_completion_request(std::string_view body);

}  // namespace tessera::serve
