// tokenizer.json to BpeVocab: vocabulary, merges, added tokens, and the pre-tokenizer
// recognised by its structure (only the byte-level shapes Tessera implements).
#include "core/tokenizer/hf_tokenizer_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/error.h"
#include "core/weights/json_text.h"

namespace tessera {
namespace {

using nlohmann::json;

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path, "");
}

bool is_type(const json& node, const char* type) {
  return node.is_object() && node.value("type", "") == type;
}

// The tokenizer.ggml.pre name whose rules the pre_tokenizer node describes.
std::string pre_name(const json& pre, const std::string& path) {
  if (is_type(pre, "ByteLevel")) return "gpt-2";
  if (is_type(pre, "Sequence") && pre.contains("pretokenizers")) {
    const json& steps = pre["pretokenizers"];
    if (steps.size() == 2 && is_type(steps[0], "Digits") && steps[0].value("individual_digits", false) &&
        is_type(steps[1], "ByteLevel"))
      return "starcoder";
  }
  throw Error(path + ": pre_tokenizer " + pre.dump().substr(0, 120) +
              " is not supported (ByteLevel, or Digits(individual) then ByteLevel)");
}

std::string merge_text(const json& m, const std::string& path) {
  if (m.is_string()) return m.get<std::string>();
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
    return m[0].get<std::string>() + " " + m[1].get<std::string>();
  throw Error(path + ": model.merges holds " + json_kind(m) + ", expected \"a b\" or [a, b]");
}

// The id of a special token named in tokenizer_config.json ("eos_token": "x" or {content}).
int32_t config_token_id(const json& config, const char* key, const BpeVocab& v) {
  if (!config.contains(key)) return -1;
  const json& t = config[key];
  const std::string text = t.is_string() ? t.get<std::string>() : t.is_object() ? t.value("content", "") : "";
  for (int32_t id = 0; id < v.size(); ++id)
    if (v.texts[id] == text) return id;
  return -1;
}

}  // namespace

BpeVocab bpe_vocab_from_tokenizer_json(const std::string& path) {
  const json doc = read_json_file(path);
  const json& model = doc.contains("model") ? doc["model"] : json();
  if (!is_type(model, "BPE"))
    throw Error(path + ": model.type must be \"BPE\" (byte-level BPE); other tokenizers are not supported");
  BpeVocab v;
  v.pre = pre_name(doc.contains("pre_tokenizer") ? doc["pre_tokenizer"] : json(), path);

  std::vector<std::pair<int64_t, std::string>> entries;
  for (const auto& [text, id] : model.at("vocab").items()) entries.emplace_back(id.get<int64_t>(), text);
  std::vector<std::pair<int64_t, bool>> added;  // id, special
  for (const json& t : doc.value("added_tokens", json::array())) {
    entries.emplace_back(t.at("id").get<int64_t>(), t.at("content").get<std::string>());
    added.emplace_back(t.at("id").get<int64_t>(), t.value("special", false));
  }
  int64_t n = 0;
  for (const auto& e : entries) {
    if (e.first < 0 || e.first > 10'000'000) throw Error(path + ": token id " + std::to_string(e.first) + " is out of range");
    n = std::max(n, e.first + 1);
  }
  v.texts.assign(n, "");
  v.types.assign(n, TokenType::Unused);  // ids nobody names stay unused
  for (const auto& [id, text] : entries) {
    v.texts[id] = text;
    v.types[id] = TokenType::Normal;
  }
  for (const auto& [id, special] : added) v.types[id] = special ? TokenType::Control : TokenType::UserDefined;
  for (const json& m : model.value("merges", json::array())) v.merges.push_back(merge_text(m, path));

  const auto config_path = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    const json config = read_json_file(config_path.string());
    v.bos_id = config_token_id(config, "bos_token", v);
    v.eos_id = config_token_id(config, "eos_token", v);
    v.add_bos = config.value("add_bos_token", false);
  }
  validate_bpe_vocab(v, path);
  return v;
}

}  // namespace tessera
