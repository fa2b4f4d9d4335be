// One conversation of `tessera chat`: the messages so far, the engine that answers, and
// the slash commands (/reset, /system, /save, /load, /backend, /reload). Each turn
// submits the whole conversation; the engine's prefix cache holds the earlier turns'
// KV blocks, so a turn computes only its new tokens.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/chat/chat_format.h"
#include "core/engine/engine.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

struct ChatSessionOptions {
  EngineOptions engine;
  SamplingParams sampling;
  int32_t max_answer_tokens = 1024;
  bool verbose = false;  // a line on stderr after each answer: tokens cached and computed, speed
};

// What one turn did.
struct TurnReport {
  std::shared_ptr<const RequestResult> result;  // null when the turn was refused
  std::string error;                            // why it was refused
};

class ChatSession {
 public:
  // `rt` (plugins, backend, model) and `format` must outlive the session; the session
  // replaces rt.backend on /backend and /reload.
  ChatSession(Runtime& rt, const RuntimeOptions& runtime_options, const chat::ChatFormat& format,
              ChatSessionOptions options, std::string system);

  // Adds the user's message and streams the answer to `out` as it is generated. Stops
  // early (keeping what was said) when `*interrupted` turns true. A template that
  // refuses the conversation (roles, say) leaves it unchanged and reports why.
  TurnReport answer(const std::string& user, std::FILE* out, const std::atomic<bool>* interrupted);

  // Runs a slash command (the whole line, "/save chat.json"); returns false for /quit
  // and /exit. Prints what it did to `out` and problems to `err`; never throws for a
  // user's mistake.
  bool command(const std::string& line, std::FILE* out, std::FILE* err);

  const std::vector<chat::ChatMessage>& messages() const { return messages_; }
  const Engine& engine() const { return *engine_; }

 private:
  void set_system(const std::string& text);
  void move_to(const std::string& spec, std::FILE* out);
  void reload(const std::string& name, std::FILE* out);
  void print_turn(const RequestResult& r) const;

  Runtime& rt_;
  const RuntimeOptions& runtime_options_;
  std::string backend_spec_;
  const chat::ChatFormat& format_;
  ChatSessionOptions options_;
  std::vector<chat::ChatMessage> messages_;
  std::unique_ptr<Engine> engine_;
  int turns_ = 0;
};

}  // namespace tessera::cli
