#include "tools/tessera/serve/request_parser.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/json_fields.h"

namespace tessera::serve {
namespace {

using nlohmann::json;

constexpr int32_t kMaxChoices = 128;  // n, and n times the prompts of /v1/completions
constexpr size_t kMaxStops = 4;       // OpenAI's limit
constexpr int64_t kMaxChatTopLogprobs = 20;
constexpr int64_t kMaxCompletionLogprobs = 5;

json parse_object(std::string_view body) {
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::exception& e) {
    // A syntax error, or a number too big for a double (1e999); the library's
    // "[json.exception.x.n] " prefix says nothing to a client.
    std::string what = e.what();
    if (what.starts_with("[json.exception.") && what.find("] ") != std::string::npos) {
      what.erase(0, what.find("] ") + 2);
    }
    throw invalid_request("the body is not valid JSON: " + what);
  }
  if (!parsed.is_object()) throw invalid_request("the body must be a JSON object, got " + json_type_name(parsed));
  return parsed;
}

std::vector<std::string> parse_stop(const json& body) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return {};
  if (it->is_string()) {
    if (it->get<std::string>().empty()) return {};
    return {it->get<std::string>()};
  }
  if (!it->is_array()) throw_wrong_type("stop", "a string or an array of strings", *it);
  if (it->size() > kMaxStops) {
    throw invalid_request("invalid value for 'stop': at most " + std::to_string(kMaxStops) + " sequences, got " +
                              std::to_string(it->size()),
                          "stop");
  }
  std::vector<std::string> stops;
  for (const json& s : *it) {
    if (!s.is_string()) throw_wrong_type("stop", "a string or an array of strings", s);
    if (s.get<std::string>().empty()) throw invalid_request("invalid value for 'stop': an empty sequence", "stop");
    stops.push_back(s.get<std::string>());
  }
  return stops;
}

// Fields of features Tessera lacks: refused when they ask for something.
void refuse_unsupported(const json& body) {
  for (const char* name : {"tools", "functions", "logit_bias"}) {
    auto it = body.find(name);
    if (it != body.end() && !it->is_null() && !it->empty()) {
      throw invalid_request(std::string("'") + name + "' is not supported by this server", name);
    }
  }
  if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
    if (!it->is_object() || it->value("type", "") != "text") {
      throw invalid_request("'response_format' other than {\"type\": \"text\"} is not supported by this server",
                            "response_format");
    }
  }
}

void parse_sampling(const json& body, GenerationParams& p) {
  SamplingParams& s = p.sampling;
  if (auto t = number_in(body, "temperature", 0, 2)) s.temperature = static_cast<float>(*t);
  if (auto t = number_in(body, "top_p", 0, 1)) {
    if (*t <= 0) throw invalid_request("invalid value for 'top_p': must be greater than 0, got 0", "top_p");
    s.top_p = static_cast<float>(*t);
  }
  if (auto t = number_in(body, "presence_penalty", -2, 2)) s.presence_penalty = static_cast<float>(*t);
  if (auto t = number_in(body, "frequency_penalty", -2, 2)) s.frequency_penalty = static_cast<float>(*t);
  // Extensions other OpenAI-compatible servers accept too.
  if (auto t = integer_in(body, "top_k", -1, std::numeric_limits<int32_t>::max())) {
    s.top_k = static_cast<int32_t>(*t < 0 ? 0 : *t);
  }
  if (auto t = number_in(body, "min_p", 0, 1)) s.min_p = static_cast<float>(*t);
  if (auto t = number_in(body, "repetition_penalty", 0, 100)) {
    if (*t <= 0)
      throw invalid_request("invalid value for 'repetition_penalty': must be greater than 0", "repetition_penalty");
    s.repetition_penalty = static_cast<float>(*t);
  }
  p.seed = integer_field(body, "seed");
}

void parse_stream(const json& body, GenerationParams& p) {
  p.stream = bool_field(body, "stream").value_or(false);
  auto it = body.find("stream_options");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_object()) throw_wrong_type("stream_options", "an object", *it);
  if (!p.stream) throw invalid_request("'stream_options' is only allowed with 'stream': true", "stream_options");
  p.include_usage = bool_field(*it, "include_usage").value_or(false);
}

// What both endpoints read; `min_tokens` is the least max_tokens allowed.
GenerationParams parse_common(const json& body, int64_t min_tokens) {
  refuse_unsupported(body);
  GenerationParams p;
  const int64_t most = std::numeric_limits<int32_t>::max();
  p.max_tokens = integer_in(body, "max_completion_tokens", min_tokens, most);
  if (!p.max_tokens) p.max_tokens = integer_in(body, "max_tokens", min_tokens, most);
  parse_sampling(body, p);
  p.stop = parse_stop(body);
  p.n = static_cast<int32_t>(integer_in(body, "n", 1, kMaxChoices).value_or(1));
  parse_stream(body, p);
  p.ignore_eos = bool_field(body, "ignore_eos").value_or(false);
  return p;
}

std::string message_content(const json& message, const std::string& where) {
  auto it = message.find("content");
  if (it == message.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (!it->is_array()) throw_wrong_type(where + ".content", "a string or an array of content parts", *it);
  std::string text;
  for (const json& part : *it) {
    // json::value() throws when "type" is there but not a string: test the types first.
    const auto type = part.is_object() ? part.find("type") : part.end();
    const auto text_field = part.is_object() ? part.find("text") : part.end();
    if (type == part.end() || !type->is_string() || *type != "text" || text_field == part.end() ||
        !text_field->is_string()) {
      throw invalid_request("invalid value for '" + where +
                                ".content': only text parts ({\"type\": \"text\", "
                                "\"text\": ...}) are supported",
                            where + ".content");
    }
    text += (text.empty() ? "" : "\n") + text_field->get<std::string>();
  }
  return text;
}

chat::ChatMessage parse_message(const json& message, size_t index) {
  const std::string where = "messages[" + std::to_string(index) + "]";
  if (!message.is_object()) throw_wrong_type(where, "an object", message);
  const std::optional<std::string> role = string_field(message, "role");
  if (!role) throw invalid_request("missing required parameter: '" + where + ".role'", where + ".role");
  if (*role != "system" && *role != "developer" && *role != "user" && *role != "assistant" && *role != "tool") {
    throw invalid_request("invalid value for '" + where + ".role': '" + *role +
                              "'; supported roles are system, developer, user, assistant and tool",
                          where + ".role");
  }
  // OpenAI's "developer" messages are what chat templates call system messages.
  return chat::ChatMessage{*role == "developer" ? "system" : *role, message_content(message, where)};
}

std::vector<chat::ChatMessage> parse_messages(const json& body) {
  auto it = body.find("messages");
  if (it == body.end() || it->is_null()) throw invalid_request("missing required parameter: 'messages'", "messages");
  if (!it->is_array()) throw_wrong_type("messages", "an array", *it);
  if (it->empty()) throw invalid_request("invalid value for 'messages': the list is empty", "messages");
  std::vector<chat::ChatMessage> messages;
  for (size_t i = 0; i < it->size(); ++i) messages.push_back(parse_message((*it)[i], i));
  return messages;
}

void parse_chat_logprobs(const json& body, GenerationParams& p) {
  const bool on = bool_field(body, "logprobs").value_or(false);
  const std::optional<int64_t> top = integer_in(body, "top_logprobs", 0, kMaxChatTopLogprobs);
  if (top && !on) throw invalid_request("'top_logprobs' needs 'logprobs' set to true", "top_logprobs");
  p.logprobs = on ? static_cast<int32_t>(top.value_or(0)) : -1;
}

std::vector<int32_t> token_ids(const json& array, const std::string& where) {
  std::vector<int32_t> ids;
  for (const json& t : array) {
    if (!t.is_number_integer()) throw_wrong_type(where, "an array of token ids (integers)", t);
    const int64_t id = t.get<int64_t>();
    if (id < 0 || id > std::numeric_limits<int32_t>::max()) {
      throw invalid_request("invalid value for '" + where + "': token id " + std::to_string(id) + " is out of range",
                            "prompt");
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  if (ids.empty()) throw invalid_request("invalid value for '" + where + "': the prompt is empty", "prompt");
  return ids;
}

// OpenAI's forms: a string, a list of strings, a list of token ids, a list of lists of ids.
std::vector<PromptInput> parse_prompts(const json& body) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) throw invalid_request("missing required parameter: 'prompt'", "prompt");
  const json& prompt = *it;
  if (prompt.is_string()) return {PromptInput{false, prompt.get<std::string>(), {}}};
  const std::string expected = "a string, an array of strings, an array of token ids or an array of such arrays";
  if (!prompt.is_array()) throw_wrong_type("prompt", expected, prompt);
  if (prompt.empty()) throw invalid_request("invalid value for 'prompt': the list is empty", "prompt");
  if (prompt[0].is_number_integer()) return {PromptInput{true, "", token_ids(prompt, "prompt")}};
  std::vector<PromptInput> prompts;
  for (size_t i = 0; i < prompt.size(); ++i) {
    const json& p = prompt[i];
    const std::string where = "prompt[" + std::to_string(i) + "]";
    if (p.is_string() && prompt[0].is_string()) {
      prompts.push_back(PromptInput{false, p.get<std::string>(), {}});
    } else if (p.is_array() && prompt[0].is_array()) {
      prompts.push_back(PromptInput{true, "", token_ids(p, where)});
    } else {
      throw_wrong_type("prompt", expected, p);
    }
  }
  return prompts;
}

void check_model_field(const json& body, std::string& model) { model = string_field(body, "model").value_or(""); }

}  // namespace

SamplingParams GenerationParams::openai_defaults() {
  SamplingParams s;
  s.temperature = 1.0f;
  s.top_k = 0;
  s.top_p = 1.0f;
  s.min_p = 0.0f;
  s.repetition_penalty = 1.0f;
  return s;
}

ChatCompletionRequest parse_chat_request(std::string_view text) {
  const json body = parse_object(text);
  ChatCompletionRequest r;
  check_model_field(body, r.model);
  r.messages = parse_messages(body);
  r.params = parse_common(body, 1);
  parse_chat_logprobs(body, r.params);
  return r;
}

CompletionRequest parse_completion_request(std::string_view text) {
  const json body = parse_object(text);
  CompletionRequest r;
  check_model_field(body, r.model);
  r.prompts = parse_prompts(body);
  r.params = parse_common(body, 0);
  if (auto suffix = string_field(body, "suffix"); suffix && !suffix->empty()) {
    throw invalid_request("'suffix' is not supported by this server", "suffix");
  }
  r.echo = bool_field(body, "echo").value_or(false);
  if (auto n = integer_in(body, "logprobs", 0, kMaxCompletionLogprobs)) r.params.logprobs = static_cast<int32_t>(*n);
  if (auto best_of = integer_field(body, "best_of"); best_of && *best_of != r.params.n) {
    throw invalid_request("'best_of' other than 'n' is not supported by this server", "best_of");
  }
  const auto choices = static_cast<int64_t>(r.prompts.size()) * r.params.n;
  if (choices > kMaxChoices) {
    throw invalid_request("too many choices: " + std::to_string(r.prompts.size()) + " prompts times n = " +
                              std::to_string(r.params.n) + " is more than " + std::to_string(kMaxChoices),
                          "n");
  }
  return r;
}

}  // namespace tessera::serve
