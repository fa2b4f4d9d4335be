#include "tools/tessera/hf_config_writer.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "tools/tessera/json_writer.h"

namespace tessera::cli {
namespace {

// A JSON value under construction: a literal (already JSON text) or an object whose
// members keep the order they were added in.
struct JsonNode {
  std::string literal;  // "" for an object
  std::vector<std::pair<std::string, JsonNode>> members;

  JsonNode* find(std::string_view key) {
    for (auto& [k, v] : members) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

std::string number_text(const HParam& h) {
  if (!std::isfinite(h.value)) {
    throw Error("hyper-parameter '" + h.name + "' is " + std::to_string(h.value) + ", which JSON cannot hold");
  }
  if (h.is_integer) return std::to_string(static_cast<int64_t>(h.value));
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, h.value).ptr;  // shortest text that reads back exactly
  std::string text(buf, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // stays a float in JSON readers
  return text;
}

// Puts `literal` at the dotted `key` ("rope_parameters.rope_theta"), creating objects.
void insert(JsonNode& root, const std::string& key, std::string literal) {
  JsonNode* node = &root;
  size_t begin = 0;
  while (true) {
    const size_t dot = key.find('.', begin);
    const std::string part = key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    JsonNode* child = node->find(part);
    if (dot == std::string::npos) {
      if (!child) {
        node->members.emplace_back(part, JsonNode{std::move(literal), {}});
      } else if (child->literal != literal) {
        throw Error("config.json key '" + key + "' would hold both " +
                    (child->literal.empty() ? "an object" : child->literal) + " and " + literal);
      }
      return;
    }
    if (!child) child = &node->members.emplace_back(part, JsonNode{}).second;
    if (!child->literal.empty()) {
      throw Error("config.json key '" + key.substr(0, dot) + "' would hold both " + child->literal +
                  " and an object");
    }
    node = child;
    begin = dot + 1;
  }
}

void write(const JsonNode& node, int indent, std::string& out) {
  if (!node.literal.empty()) {
    out += node.literal;
    return;
  }
  if (node.members.empty()) {
    out += "{}";
    return;
  }
  const std::string pad(static_cast<size_t>(indent + 2), ' ');
  out += "{\n";
  for (size_t i = 0; i < node.members.size(); ++i) {
    out += pad + json_escape(node.members[i].first) + ": ";
    write(node.members[i].second, indent + 2, out);
    out += i + 1 < node.members.size() ? ",\n" : "\n";
  }
  out += std::string(static_cast<size_t>(indent), ' ') + "}";
}

}  // namespace

std::string hf_config_json(const CompiledModel& model) {
  JsonNode root;
  root.members.emplace_back("architectures", JsonNode{"[]", {}});
  for (const HParam& h : model.hparams) {
    if (!h.hf_key.empty()) insert(root, h.hf_key, number_text(h));
  }
  insert(root, "model_type", json_escape(model.name));
  std::string out;
  write(root, 0, out);
  return out + "\n";
}

}  // namespace tessera::cli
