#include "core/chat/template_source.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/text_file.h"
#include "core/weights/weight_file.h"

namespace tessera::chat {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Templates are a few KiB; a bigger file is not one.
constexpr uint64_t kMaxTemplateBytes = uint64_t{1} << 20;

std::string read_template_file(const fs::path& path, const char* what) {
  return read_text_file(path.string(), kMaxTemplateBytes, what);
}

// tokenizer_config.json of a Hugging Face folder, or null when it has none.
json folder_config(const WeightFile& weights) {
  if (weights.format() != "hf") return nullptr;
  const fs::path path = fs::path(weights.path()) / "tokenizer_config.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  const std::string text = read_template_file(path, "a tokenizer configuration");
  json config;
  try {
    config = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(path.string() + ": not valid JSON: " + e.what());
  }
  if (!config.is_object()) throw Error(path.string() + ": not a JSON object");
  return config;
}

// "chat_template": "..." or [{"name": "default", "template": "..."}, ...].
std::optional<std::string> config_template(const json& config, const std::string& where) {
  if (config.is_null() || !config.contains("chat_template")) return std::nullopt;
  const json& t = config["chat_template"];
  if (t.is_string()) return t.get<std::string>();
  if (t.is_array() && !t.empty()) {
    const json* first = nullptr;
    const json* named_default = nullptr;
    for (const json& entry : t) {
      if (!entry.is_object() || !entry.contains("template") || !entry["template"].is_string()) {
        first = nullptr;
        break;
      }
      if (!first) first = &entry;
      if (entry.contains("name") && entry["name"] == "default") named_default = &entry;
    }
    if (first) return (named_default ? *named_default : *first)["template"].get<std::string>();
  }
  throw Error(where + ": chat_template must be a string or a list of {\"name\", \"template\"} objects");
}

std::string token_text(const json& config, const char* key) {
  if (config.is_null() || !config.contains(key)) return "";
  const json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

}  // namespace

std::optional<TemplateSource> model_chat_template(const WeightFile& weights) {
  if (const MetaValue* meta = weights.find_meta("tokenizer.chat_template")) {
    return TemplateSource{meta->as_string(), weights.path() + ": tokenizer.chat_template"};
  }
  if (weights.format() != "hf") return std::nullopt;
  const fs::path jinja = fs::path(weights.path()) / "chat_template.jinja";
  std::error_code ec;
  if (fs::exists(jinja, ec)) return TemplateSource{read_template_file(jinja, "a chat template"), jinja.string()};
  const std::string config_path = (fs::path(weights.path()) / "tokenizer_config.json").string();
  if (auto text = config_template(folder_config(weights), config_path)) {
    return TemplateSource{std::move(*text), config_path + ": chat_template"};
  }
  return std::nullopt;
}

SpecialTokenTexts config_token_texts(const WeightFile& weights) {
  const json config = folder_config(weights);
  return {token_text(config, "bos_token"), token_text(config, "eos_token")};
}

TemplateSource chosen_template(const std::string& value) {
  if (auto builtin = builtin_template(value)) return *builtin;
  std::error_code ec;
  if (!fs::exists(value, ec)) {
    std::string names;
    for (const std::string& n : builtin_template_names()) names += (names.empty() ? "" : ", ") + n;
    throw Error("--chat-template '" + value + "' is neither a built-in template (" + names + ") nor a file");
  }
  return TemplateSource{read_template_file(value, "a chat template"), value};
}

}  // namespace tessera::chat
