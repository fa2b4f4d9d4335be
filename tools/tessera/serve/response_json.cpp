#include "tools/tessera/serve/response_json.h"

namespace tessera::serve {
namespace {

using json = nlohmann::ordered_json;

json head_json(const ResponseHead& head, const char* object) {
  return {{"id", head.id}, {"object", object}, {"created", head.created}, {"model", head.model}};
}

json finish_json(const std::string& reason) { return reason.empty() ? json(nullptr) : json(reason); }

json bytes_json(const std::string& text) {
  json bytes = json::array();
  for (unsigned char c : text) bytes.push_back(static_cast<int>(c));
  return bytes;
}

// Chat logprobs: {"content": [{"token", "logprob", "bytes", "top_logprobs": [...]}], "refusal": null}.
json chat_logprobs_json(const std::optional<std::vector<LogprobEntry>>& entries) {
  if (!entries) return nullptr;
  json content = json::array();
  for (const LogprobEntry& e : *entries) {
    json top = json::array();
    for (const auto& [text, logprob] : e.top) {
      top.push_back({{"token", text}, {"logprob", logprob}, {"bytes", bytes_json(text)}});
    }
    content.push_back(
        {{"token", e.token}, {"logprob", e.logprob}, {"bytes", bytes_json(e.token)}, {"top_logprobs", top}});
  }
  return {{"content", content}, {"refusal", nullptr}};
}

// Legacy logprobs: parallel lists, text_offset counting bytes from the choice's start.
json completion_logprobs_json(const ChoiceOutput& choice) {
  if (!choice.logprobs) return nullptr;
  json tokens = json::array(), token_logprobs = json::array(), top_logprobs = json::array(), offsets = json::array();
  int64_t offset = choice.text_offset;
  for (const LogprobEntry& e : *choice.logprobs) {
    tokens.push_back(e.token);
    token_logprobs.push_back(e.logprob);
    json top = json::object();
    for (const auto& [text, logprob] : e.top) {
      if (!top.contains(text)) top[text] = logprob;  // two ids with one text: the likelier one
    }
    top_logprobs.push_back(top);
    offsets.push_back(offset);
    offset += static_cast<int64_t>(e.token.size());
  }
  return {
      {"tokens", tokens}, {"token_logprobs", token_logprobs}, {"top_logprobs", top_logprobs}, {"text_offset", offsets}};
}

}  // namespace

json usage_json(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

json chat_completion_json(const ResponseHead& head, const std::vector<ChoiceOutput>& choices, const Usage& usage) {
  json out = head_json(head, "chat.completion");
  json list = json::array();
  for (const ChoiceOutput& c : choices) {
    list.push_back({{"index", c.index},
                    {"message", {{"role", "assistant"}, {"content", c.text}}},
                    {"logprobs", chat_logprobs_json(c.logprobs)},
                    {"finish_reason", finish_json(c.finish_reason)}});
  }
  out["choices"] = list;
  out["usage"] = usage_json(usage);
  return out;
}

json chat_chunk_json(const ResponseHead& head, const ChatChunk& chunk, bool usage_field) {
  json out = head_json(head, "chat.completion.chunk");
  out["choices"] = json::array({{{"index", chunk.index},
                                 {"delta", chunk.delta},
                                 {"logprobs", chat_logprobs_json(chunk.logprobs)},
                                 {"finish_reason", finish_json(chunk.finish_reason)}}});
  if (usage_field) out["usage"] = nullptr;
  return out;
}

json chat_usage_chunk_json(const ResponseHead& head, const Usage& usage) {
  json out = head_json(head, "chat.completion.chunk");
  out["choices"] = json::array();
  out["usage"] = usage_json(usage);
  return out;
}

json completion_json(const ResponseHead& head, const std::vector<ChoiceOutput>& choices, const Usage& usage) {
  json out = head_json(head, "text_completion");
  json list = json::array();
  for (const ChoiceOutput& c : choices) {
    list.push_back({{"index", c.index},
                    {"text", c.text},
                    {"logprobs", completion_logprobs_json(c)},
                    {"finish_reason", finish_json(c.finish_reason)}});
  }
  out["choices"] = list;
  out["usage"] = usage_json(usage);
  return out;
}

json completion_chunk_json(const ResponseHead& head, const ChoiceOutput& choice, bool usage_field) {
  json out = head_json(head, "text_completion");
  out["choices"] = json::array({{{"index", choice.index},
                                 {"text", choice.text},
                                 {"logprobs", completion_logprobs_json(choice)},
                                 {"finish_reason", finish_json(choice.finish_reason)}}});
  if (usage_field) out["usage"] = nullptr;
  return out;
}

json completion_usage_chunk_json(const ResponseHead& head, const Usage& usage) {
  json out = head_json(head, "text_completion");
  out["choices"] = json::array();
  out["usage"] = usage_json(usage);
  return out;
}

json model_json(const std::string& id, int64_t created) {
  return {{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "tessera"}};
}

json models_json(const std::string& id, int64_t created) {
  return {{"object", "list"}, {"data", json::array({model_json(id, created)})}};
}

std::string json_text(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& data) { return "data: " + json_text(data) + "\n\n"; }

}  // namespace tessera::serve
