// The model a server answers for, and what a request needs of it: its name, its
// tokenizer, its conversation format and its context length.
#pragma once

#include <cstdint>
#include <string>

#include "core/chat/chat_format.h"
#include "core/tokenizer/tokenizer.h"

namespace tessera::serve {

struct ServedModel {
  std::string id;                                 // the weights' file stem, or --alias
  int64_t created = 0;                            // when the server started, Unix seconds
  const Tokenizer* tokenizer = nullptr;           // outlives the server
  const chat::ChatFormat* chat_format = nullptr;  // null: no template, chat completions are refused
  std::string no_chat_reason;                     // why chat_format is null
  int64_t n_ctx = 0;                              // tokens of prompt and answer together
};

}  // namespace tessera::serve
