// The shared tokenizer.json parts: token table, merges, model checks, special tokens.
#include "core/tokenizer/hf_json_tables.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/util/error.h"
#include "core/util/text_file.h"
#include "core/weights/json_text.h"

namespace tessera::hf_json {
namespace {

// The largest id accepted: far above any real vocabulary, low enough to allocate.
constexpr int64_t kMaxTokenId = 10'000'000;

bool null_or_empty(const json& model, const char* key) {
  if (!model.contains(key)) return true;
  const json& v = model[key];
  return v.is_null() || (v.is_string() && v.get<std::string>().empty());
}

// The text of a special token named in tokenizer_config.json: "x" or {"content": "x"}.
std::string config_token_text(const json& config, const char* key) {
  if (!config.contains(key)) return "";
  const json& t = config[key];
  if (t.is_string()) return t.get<std::string>();
  if (t.is_object()) return t.value("content", "");
  return "";
}

// Whether a post-processor (TemplateProcessing, or one inside a Sequence) starts a single
// sequence with the special token `bos`.
bool template_starts_with(const json& processor, const std::string& bos) {
  if (bos.empty() || !processor.is_object()) return false;
  if (is_type(processor, "Sequence")) {
    const json& steps = processor.value("processors", json::array());
    return std::any_of(steps.begin(), steps.end(),
                       [&](const json& p) { return template_starts_with(p, bos); });
  }
  if (!is_type(processor, "TemplateProcessing")) return false;
  const json& single = processor.value("single", json::array());
  if (!single.is_array() || single.empty() || !single[0].is_object()) return false;
  const json& first = single[0];
  return first.contains("SpecialToken") && first["SpecialToken"].is_object() &&
         first["SpecialToken"].value("id", "") == bos;
}

}  // namespace

json read_json_file(const std::string& path) {
  // A tokenizer.json of a large vocabulary is tens of MiB; 1 GiB is not one.
  return parse_json_text(read_text_file(path, uint64_t{1} << 30, "a tokenizer file"), path, "");
}

bool is_type(const json& node, const char* type) {
  return node.is_object() && node.contains("type") && node["type"].is_string() &&
         node["type"].get<std::string>() == type;
}

std::string brief(const json& node) {
  const std::string text = node.dump();
  return text.size() <= 120 ? text : text.substr(0, 117) + "...";
}

const json& bpe_model(const json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("model") || !doc["model"].is_object())
    throw Error(path + ": has no \"model\" object; is it a tokenizer.json?");
  const json& model = doc["model"];
  if (!is_type(model, "BPE"))
    throw Error(path + ": model.type is " + brief(model.value("type", json())) +
                "; Tessera reads only BPE tokenizers (byte-level, or SentencePiece-style with "
                "byte fallback)");
  if (!model.value("dropout", json()).is_null())
    throw Error(path + ": model.dropout is " + brief(model["dropout"]) +
                "; BPE dropout (random merges) is not supported");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (!null_or_empty(model, key))
      throw Error(path + ": model." + key + " is " + brief(model[key]) + "; it is not supported");
  if (!model.contains("vocab") || !model["vocab"].is_object())
    throw Error(path + ": model.vocab is missing or not an object");
  return model;
}

int32_t TokenTable::find(const std::string& text) const {
  auto it = std::find(texts.begin(), texts.end(), text);
  return it == texts.end() ? -1 : static_cast<int32_t>(it - texts.begin());
}

TokenTable read_token_table(const json& doc, const std::string& path) {
  std::vector<std::pair<int64_t, std::string>> entries;
  for (const auto& [text, id] : doc["model"]["vocab"].items()) {
    if (!id.is_number_integer())
      throw Error(path + ": model.vocab[\"" + text + "\"] is " + json_kind(id) + ", not a token id");
    entries.emplace_back(id.get<int64_t>(), text);
  }
  std::vector<std::pair<int64_t, bool>> added;  // id, special
  for (const json& t : doc.value("added_tokens", json::array())) {
    if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
        !t.contains("content") || !t["content"].is_string())
      throw Error(path + ": added token " + brief(t) + " lacks an integer id or a string content");
    entries.emplace_back(t["id"].get<int64_t>(), t["content"].get<std::string>());
    added.emplace_back(t["id"].get<int64_t>(), t.value("special", false));
  }
  int64_t n = 0;
  for (const auto& e : entries) {
    if (e.first < 0 || e.first > kMaxTokenId)
      throw Error(path + ": token id " + std::to_string(e.first) + " is out of range");
    n = std::max(n, e.first + 1);
  }
  TokenTable table;
  table.texts.assign(n, "");
  table.types.assign(n, TokenType::Unused);  // ids nobody names stay unused
  for (const auto& [id, text] : entries) {
    table.texts[id] = text;
    table.types[id] = TokenType::Normal;
  }
  for (const auto& [id, special] : added)
    table.types[id] = special ? TokenType::Control : TokenType::UserDefined;
  return table;
}

int32_t unk_token_id(const json& model, const TokenTable& table) {
  const json unk = model.value("unk_token", json());
  return unk.is_string() ? table.find(unk.get<std::string>()) : -1;
}

std::vector<std::string> read_merges(const json& model, const std::string& path) {
  std::vector<std::string> merges;
  for (const json& m : model.value("merges", json::array())) {
    if (m.is_string()) merges.push_back(m.get<std::string>());
    else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
      merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
    else
      throw Error(path + ": model.merges holds " + json_kind(m) + ", expected \"a b\" or [a, b]");
  }
  return merges;
}

SpecialTokens read_special_tokens(const json& doc, const std::string& path, const TokenTable& table) {
  SpecialTokens s;
  json config = json::object();
  const auto config_path = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
  if (std::filesystem::exists(config_path)) config = read_json_file(config_path.string());
  const std::string bos = config_token_text(config, "bos_token");
  const std::string eos = config_token_text(config, "eos_token");
  if (!bos.empty()) s.bos_id = table.find(bos);
  if (!eos.empty()) s.eos_id = table.find(eos);
  const json add_bos = config.value("add_bos_token", json());
  if (add_bos.is_boolean()) s.add_bos = add_bos.get<bool>();
  else s.add_bos = s.bos_id >= 0 && template_starts_with(doc.value("post_processor", json()), bos);
  const json add_eos = config.value("add_eos_token", json());
  s.add_eos = add_eos.is_boolean() && add_eos.get<bool>();
  return s;
}

}  // namespace tessera::hf_json
