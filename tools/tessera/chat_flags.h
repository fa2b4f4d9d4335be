// The chat options of `generate --chat` and `chat`: the template (the model's own, or
// --chat-template NAME|FILE) and the system message, and the conversation format
// they make for a model.
#pragma once

#include <string>
#include <vector>

#include "core/chat/chat_format.h"
#include "core/engine/model.h"
#include "tools/tessera/options.h"

namespace tessera::cli {

struct ChatFlags {
  bool enabled = false;        // generate --chat (always on for `chat`)
  std::string template_name;   // --chat-template: a built-in name or a file; "" = the model's
  std::string system;          // --system: the system message; "" = none

  void add_to(OptionTable& t);
  // The system message (if any) and `user`'s.
  std::vector<chat::ChatMessage> conversation(const std::string& user) const;
};

// The conversation format of `model`: --chat-template's when given, else the template
// the model carries. Throws tessera::Error when the model carries none (naming the
// built-in ones) or the template does not parse (naming its position).
chat::ChatFormat chat_format_of(const Model& model, const std::string& template_name);

}  // namespace tessera::cli
