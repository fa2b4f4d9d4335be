#include "core/chat/conversation_json.h"

#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/text_file.h"
#include "core/weights/atomic_output_file.h"

namespace tessera::chat {
namespace {

using nlohmann::json;
constexpr uint64_t kMaxConversationBytes = uint64_t{64} << 20;

}  // namespace

std::string conversation_to_json(const std::vector<ChatMessage>& messages) {
  json list = json::array();
  for (const ChatMessage& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  // Invalid UTF-8 (a cut answer) is replaced, never written raw.
  return json{{"messages", list}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::vector<ChatMessage> conversation_from_json(const std::string& text, const std::string& name) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(name + ": not valid JSON: " + e.what());
  }
  const json* list = &doc;
  if (doc.is_object()) {
    if (!doc.contains("messages")) throw Error(name + ": no \"messages\" list");
    list = &doc["messages"];
  }
  if (!list->is_array()) throw Error(name + ": \"messages\" must be a list of {\"role\", \"content\"} objects");
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& m = (*list)[i];
    const std::string which = name + ": message " + std::to_string(i);
    if (!m.is_object()) throw Error(which + " is not an object");
    for (const char* key : {"role", "content"}) {
      if (!m.contains(key) || !m[key].is_string()) throw Error(which + " needs a string \"" + key + "\"");
    }
    messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
  }
  return messages;
}

std::vector<ChatMessage> read_conversation(const std::string& path) {
  return conversation_from_json(read_text_file(path, kMaxConversationBytes, "a conversation file"), path);
}

void write_conversation(const std::string& path, const std::vector<ChatMessage>& messages) {
  const std::string text = conversation_to_json(messages);
  AtomicOutputFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace tessera::chat
