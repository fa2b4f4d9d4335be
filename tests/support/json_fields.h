// Reading fields out of the CLI's --json lines in tests, without a JSON library.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/golden.h"

namespace tessera::test {

// The ids of a JSON array field such as "generated_ids":[1,2,3]; empty if absent.
inline std::vector<int32_t> json_ids(const std::string& json, const std::string& field) {
  const std::string key = "\"" + field + "\":[";
  const size_t at = json.find(key);
  if (at == std::string::npos) return {};
  std::string body = json.substr(at + key.size(), json.find(']', at) - at - key.size());
  for (char& c : body) {
    if (c == ',') c = ' ';
  }
  return parse_ids(body);
}

// The value of a JSON string field without escapes, such as "text":"Once upon".
inline std::string json_text(const std::string& json, const std::string& field) {
  const std::string key = "\"" + field + "\":\"";
  const size_t at = json.find(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size();
  return json.substr(begin, json.find('"', begin) - begin);
}

// The value of a JSON number field such as "decode_tokens_per_s":12.5; NaN if absent.
inline double json_number(const std::string& json, const std::string& field) {
  const std::string key = "\"" + field + "\":";
  const size_t at = json.find(key);
  if (at == std::string::npos) return std::nan("");
  return std::strtod(json.c_str() + at + key.size(), nullptr);
}

}  // namespace tessera::test
