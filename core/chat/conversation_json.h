// A conversation as a JSON file (`tessera chat`'s /save and /load):
//   {"messages": [{"role": "system", "content": "..."}, {"role": "user", ...}, ...]}
// A bare list of messages, as OpenAI's API writes them, is read as well.
#pragma once

#include <string>
#include <vector>

#include "core/chat/chat_template.h"

namespace tessera::chat {

std::string conversation_to_json(const std::vector<ChatMessage>& messages);

// Throws tessera::Error "<name>: <cause>" for text that is not JSON, or not a list of
// messages each with a string "role" and a string "content".
std::vector<ChatMessage> conversation_from_json(const std::string& text, const std::string& name);

// Reads and parses a conversation file (at most 64 MiB); throws tessera::Error naming it.
std::vector<ChatMessage> read_conversation(const std::string& path);
// Writes it whole or not at all (a temporary file renamed over `path`).
void write_conversation(const std::string& path, const std::vector<ChatMessage>& messages);

}  // namespace tessera::chat
