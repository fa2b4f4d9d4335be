// Fuzzes the reading of the request bodies `tessera serve` accepts: byte 0 picks the
// endpoint (even: POST /v1/chat/completions, odd: /v1/completions), the rest is the body
// a client sent. A body that is not a valid request must be an ApiError of status 400,
// the answer the server sends; any other exception escaping is a finding. A request
// that parses must keep the limits the engine relies on.
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/request_parser.h"

namespace {

void check_params(const tessera::serve::GenerationParams& p) {
  tessera::fuzz::require(p.n >= 1, "a parsed request asks for fewer than one choice");
  tessera::fuzz::require(p.stop.size() <= 4, "a parsed request has more than 4 stop texts");
  tessera::fuzz::require(!p.max_tokens || *p.max_tokens >= 0, "a parsed request has negative max_tokens");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (data[0] % 2 == 0) {
      const auto r = tessera::serve::parse_chat_request(body);
      tessera::fuzz::require(!r.messages.empty(), "a parsed chat request has no message");
      check_params(r.params);
    } else {
      const auto r = tessera::serve::parse_completion_request(body);
      tessera::fuzz::require(!r.prompts.empty(), "a parsed completion request has no prompt");
      check_params(r.params);
    }
  } catch (const tessera::serve::ApiError& e) {
    tessera::fuzz::require(e.status() == 400, "a bad request body is answered with a status other than 400");
  }
  return 0;
}
