// The errors the OpenAI-compatible API reports to a client: an HTTP status and
// OpenAI's error object, {"error": {"message", "type", "param", "code"}}.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tessera::serve {

// Thrown by request parsing and validation; the server answers with it and goes on.
class ApiError : public std::runtime_error {
 public:
  // `param`, `code`: "" is JSON null.
  ApiError(int status, const std::string& message, std::string type, std::string param = "", std::string code = "")
      : std::runtime_error(message),
        status_(status),
        type_(std::move(type)),
        param_(std::move(param)),
        code_(std::move(code)) {}

  int status() const { return status_; }
  const std::string& type() const { return type_; }
  const std::string& param() const { return param_; }
  const std::string& code() const { return code_; }

 private:
  int status_;
  std::string type_, param_, code_;
};

// 400 invalid_request_error, naming the field at fault.
ApiError invalid_request(const std::string& message, const std::string& param = "", const std::string& code = "");

// {"error": {"message": ..., "type": ..., "param": ..., "code": ...}}.
nlohmann::ordered_json error_json(const ApiError& error);

// The error a status stands for when no handler said more (404 route, 413 body, ...).
ApiError error_for_status(int status);

}  // namespace tessera::serve
