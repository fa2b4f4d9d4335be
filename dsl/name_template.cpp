#include "dsl/name_template.h"

namespace tessera::dsl {

bool find_placeholders(std::string_view text, std::vector<Placeholder>* out, std::string* error) {
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') {
      *error = "'}' without a matching '{'";
      return false;
    }
    if (text[i] != '{') continue;
    const size_t close = text.find('}', i + 1);
    if (close == std::string_view::npos) {
      *error = "'{' without a matching '}'";
      return false;
    }
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (name.empty() || name.find('{') != std::string_view::npos) {
      *error = "a placeholder must be a name in braces, as {i}";
      return false;
    }
    out->push_back(Placeholder{std::string(name), i});
    i = close;
  }
  return true;
}

std::string expand_placeholders(std::string_view text,
                                const std::function<std::optional<std::string>(std::string_view)>& lookup,
                                std::string* unknown) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t close = text[i] == '{' ? text.find('}', i + 1) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out += text[i];
      continue;
    }
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (std::optional<std::string> value = lookup(name)) {
      out += *value;
    } else {
      if (unknown) *unknown = std::string(name);
      out += text.substr(i, close - i + 1);
    }
    i = close;
  }
  return out;
}

}  // namespace tessera::dsl
