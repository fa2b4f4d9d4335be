#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {
namespace {

using json = nlohmann::ordered_json;

json null_if_empty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

ApiError invalid_request(const std::string& message, const std::string& param, const std::string& code) {
  return ApiError(400, message, "invalid_request_error", param, code);
}

json error_json(const ApiError& error) {
  return {{"error",
           {{"message", error.what()},
            {"type", error.type()},
            {"param", null_if_empty(error.param())},
            {"code", null_if_empty(error.code())}}}};
}

ApiError error_for_status(int status) {
  switch (status) {
    case 400:
      return invalid_request("the request could not be read");
    case 401:
      return ApiError(401, "missing or incorrect API key", "invalid_request_error", "", "invalid_api_key");
    case 404:
      return ApiError(404, "no such endpoint", "invalid_request_error", "", "not_found");
    case 405:
      return ApiError(405, "method not allowed", "invalid_request_error");
    case 413:
      return ApiError(413, "the request body is larger than the server accepts (--max-body)", "invalid_request_error",
                      "", "request_too_large");
    case 503:
      return ApiError(503, "the server is shutting down", "server_error");
    default:
      break;
  }
  if (status >= 500) return ApiError(status, "internal server error", "server_error");
  return ApiError(status, "the request failed", "invalid_request_error");
}

}  // namespace tessera::serve
