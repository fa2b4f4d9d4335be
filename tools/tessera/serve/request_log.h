// One line on stderr per HTTP request: method, path, status, tokens (prompt +
// completion) and milliseconds. A request's notes (when it started, its tokens) are
// kept here from routing to the end of its response, keyed by the request object.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tessera::serve {

// "POST /v1/chat/completions 200 tokens=12+34 ms=56.7": prompt + completion tokens,
// "-" when none were counted; ms "-" when the start is unknown (refused before routing).
std::string request_log_line(const std::string& method, const std::string& path, int status, int64_t prompt_tokens,
                             int64_t completion_tokens, double ms);

class RequestLog {
 public:
  using Clock = std::chrono::steady_clock;

  // `key` identifies the request while it is served (its address).
  void start(const void* key);
  void tokens(const void* key, int64_t prompt_tokens, int64_t completion_tokens);
  // Prints the line to stderr and forgets the request.
  void finish(const void* key, const std::string& method, const std::string& path, int status);

 private:
  struct Note {
    Clock::time_point start;
    int64_t prompt_tokens = -1;
    int64_t completion_tokens = -1;
  };
  std::mutex mutex_;
  std::map<const void*, Note> notes_;
};

}  // namespace tessera::serve
