#include "core/chat/chat_template.h"

#include "core/chat/template_render.h"

namespace tessera::chat {

ChatTemplate::ChatTemplate(std::string source, std::string name)
    : source_(std::move(source)), name_(std::move(name)), nodes_(parse_template(source_, name_)) {}

std::string ChatTemplate::render(const ChatInputs& inputs) const {
  List messages;
  for (const ChatMessage& m : inputs.messages) {
    messages.emplace_back(Dict{{"role", Value(m.role)}, {"content", Value(m.content)}});
  }
  const Value context(Dict{{"messages", Value(std::move(messages))},
                           {"add_generation_prompt", Value(inputs.add_generation_prompt)},
                           {"bos_token", Value(inputs.bos_token)},
                           {"eos_token", Value(inputs.eos_token)}});
  return render_template(nodes_, context, name_);
}

}  // namespace tessera::chat
