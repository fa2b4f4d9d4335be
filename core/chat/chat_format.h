// A model's conversation format: its chat template with the texts of its BOS and EOS
// tokens, how a rendered conversation becomes token ids (the control tokens the
// template writes, such as <|im_start|>, are parsed as tokens), and the tokens that end
// an assistant's turn, found in what the template writes after an answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/chat/chat_template.h"
#include "core/chat/template_source.h"
#include "core/tokenizer/tokenizer.h"

namespace tessera::chat {

class ChatFormat {
 public:
  // `tokenizer` must outlive the format. `bos_text` / `eos_text` are what the template
  // sees as bos_token / eos_token ("" takes the tokenizer's). Throws TemplateError when
  // the template does not parse.
  ChatFormat(const TemplateSource& source, const Tokenizer& tokenizer, std::string bos_text = "",
             std::string eos_text = "");

  // The conversation as the model reads it, ending with the header an answer follows
  // when `add_generation_prompt`. Throws TemplateError when the template fails or
  // raises (roles that do not alternate, say), naming its position.
  std::string render(const std::vector<ChatMessage>& messages, bool add_generation_prompt = true) const;
  // render(), then its ids: control tokens parsed, BOS first when the vocabulary adds
  // one and the template did not write it.
  std::vector<int32_t> prompt_ids(const std::vector<ChatMessage>& messages) const;
  // The ids of a rendered text, as prompt_ids tokenizes it.
  std::vector<int32_t> encode(std::string_view rendered) const;

  // The tokens that end an answer: the control token the template writes right after
  // an assistant message (<|im_end|>, <|eot_id|>, <end_of_turn>, <|end|>, ...), and
  // the vocabulary's EOS. Generation stops at any of them.
  const std::vector<int32_t>& stop_tokens() const { return stop_tokens_; }
  const std::string& template_name() const { return name_; }

 private:
  std::vector<int32_t> find_stop_tokens() const;

  ChatTemplate template_;
  std::string name_;
  const Tokenizer& tokenizer_;
  std::string bos_text_, eos_text_;
  std::vector<int32_t> control_ids_;  // control tokens with a text, longest text first
  std::vector<std::string> texts_;    // every token's text, by id (what split_out_tokens reads)
  std::vector<int32_t> stop_tokens_;
};

}  // namespace tessera::chat
