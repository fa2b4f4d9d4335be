#include "tools/tessera/chat_flags.h"

#include "core/chat/template_parser.h"
#include "core/util/error.h"

namespace tessera::cli {

void ChatFlags::add_to(OptionTable& t) {
  std::string names;
  for (const std::string& n : chat::builtin_template_names()) names += (names.empty() ? "" : "|") + n;
  t.text("--chat-template", "NAME|FILE",
         "chat template instead of the model's: a built-in one (" + names + ") or a Jinja file", &template_name)
      .text("--system", "TEXT", "system message opening the conversation", &system);
}

std::vector<chat::ChatMessage> ChatFlags::conversation(const std::string& user) const {
  std::vector<chat::ChatMessage> messages;
  if (!system.empty()) messages.push_back({"system", system});
  messages.push_back({"user", user});
  return messages;
}

chat::ChatFormat chat_format_of(const Model& model, const std::string& template_name) {
  std::optional<chat::TemplateSource> source;
  if (!template_name.empty()) {
    source = chat::chosen_template(template_name);
  } else {
    source = chat::model_chat_template(model.weights());
  }
  if (!source) {
    std::string names;
    for (const std::string& n : chat::builtin_template_names()) names += (names.empty() ? "" : ", ") + n;
    throw Error(model.weights().path() + " carries no chat template; pass --chat-template with a built-in one (" +
                names + ") or a Jinja file");
  }
  const chat::SpecialTokenTexts texts = chat::config_token_texts(model.weights());
  try {
    return chat::ChatFormat(*source, model.tokenizer(), texts.bos, texts.eos);
  } catch (const chat::TemplateError& e) {
    throw Error(std::string("the chat template does not parse: ") + e.what() +
                "; pass --chat-template with a built-in one or a file");
  }
}

}  // namespace tessera::cli
