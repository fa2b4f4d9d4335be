// A model's chat template (GGUF tokenizer.chat_template, a Hugging Face
// tokenizer_config.json's chat_template): parsed once, rendered for a conversation
// as Hugging Face renders it.
#pragma once

#include <string>
#include <vector>

#include "core/chat/template_ast.h"
#include "core/chat/template_parser.h"

namespace tessera::chat {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", ...
  std::string content;
};

struct ChatInputs {
  std::vector<ChatMessage> messages;
  bool add_generation_prompt = true;  // end with the header the assistant's answer follows
  std::string bos_token;
  std::string eos_token;
};

class ChatTemplate {
 public:
  // Throws TemplateError ("<name>:<line>:<col>: ...") when `source` does not parse.
  ChatTemplate(std::string source, std::string name);

  // Throws TemplateError when the template fails or raises (e.g. roles that do not
  // alternate), naming its position.
  std::string render(const ChatInputs& inputs) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::string name_;
  NodeList nodes_;
};

}  // namespace tessera::chat
