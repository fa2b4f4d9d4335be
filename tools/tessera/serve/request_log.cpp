#include "tools/tessera/serve/request_log.h"

#include <cstdio>

namespace tessera::serve {

std::string request_log_line(const std::string& method, const std::string& path, int status, int64_t prompt_tokens,
                             int64_t completion_tokens, double ms) {
  char timing[32] = "-";
  if (ms >= 0) std::snprintf(timing, sizeof timing, "%.1f", ms);
  const std::string tokens =
      prompt_tokens < 0 ? std::string("-") : std::to_string(prompt_tokens) + "+" + std::to_string(completion_tokens);
  return method + " " + path + " " + std::to_string(status) + " tokens=" + tokens + " ms=" + timing;
}

void RequestLog::start(const void* key) {
  std::lock_guard lock(mutex_);
  notes_[key] = Note{Clock::now()};
}

void RequestLog::tokens(const void* key, int64_t prompt_tokens, int64_t completion_tokens) {
  std::lock_guard lock(mutex_);
  auto it = notes_.find(key);
  if (it == notes_.end()) return;
  it->second.prompt_tokens = prompt_tokens;
  it->second.completion_tokens = completion_tokens;
}

void RequestLog::finish(const void* key, const std::string& method, const std::string& path, int status) {
  Note note{Clock::time_point{}};
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = notes_.find(key); it != notes_.end()) {
      note = it->second;
      known = note.start != Clock::time_point{};
      notes_.erase(it);
    }
  }
  const double ms = known ? std::chrono::duration<double, std::milli>(Clock::now() - note.start).count() : -1;
  const std::string line = request_log_line(method, path, status, note.prompt_tokens, note.completion_tokens, ms);
  std::fprintf(stderr, "tessera serve: %s\n", line.c_str());
}

}  // namespace tessera::serve
