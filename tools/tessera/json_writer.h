// Minimal JSON output for --json modes: objects and arrays written in order,
// strings escaped per RFC 8259 (invalid UTF-8 bytes become U+FFFD).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array(std::string_view key);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(bool v);
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  JsonWriter& field(std::string_view k, const std::vector<int32_t>& ids);
  const std::string& str() const { return out_; }

 private:
  void separator();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included. The result is always valid UTF-8:
// each ill-formed sequence of `s` (a partial character at the end of a token, an
// overlong form, a surrogate) becomes one \ufffd; well-formed characters stay as they are.
std::string json_escape(std::string_view s);

}  // namespace tessera::cli
