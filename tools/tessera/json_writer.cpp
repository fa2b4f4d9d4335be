#include "tools/tessera/json_writer.h"

#include <cmath>
#include <cstdio>

namespace tessera::cli {
namespace {

// The length of the well-formed UTF-8 sequence starting at s[i] (Unicode's table 3-7:
// no overlong forms, no surrogates, nothing above U+10FFFF), or 0 when it is
// ill-formed; then *bad is the length of its maximal subpart (at least 1), which
// becomes one U+FFFD, as Unicode recommends and Python's "replace" does.
size_t utf8_sequence_length(std::string_view s, size_t i, size_t* bad) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;  // overlong below U+0800
    if (c == 0xed) hi = 0x9f;  // surrogates U+D800..DFFF
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;  // overlong below U+10000
    if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    *bad = 1;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    // The text ends mid-character (a token holding part of one), or a byte is wrong.
    const bool ends = i + k >= s.size();
    const auto b = ends ? 0 : static_cast<unsigned char>(s[i + k]);
    if (ends || b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) {
      *bad = k;
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string json_escape(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t bad = 0;
    const size_t n = utf8_sequence_length(s, i, &bad);
    if (n == 0) {
      out += "\\ufffd";
      i += bad;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    i += n;
  }
  return out + "\"";
}

void JsonWriter::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separator();
  out_ += "{";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += "}";
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array(std::string_view k) {
  key(k);
  separator();
  out_ += "[";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += "]";
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separator();
  out_ += json_escape(k) + ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separator();
  out_ += json_escape(s);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separator();
  if (!std::isfinite(v)) {
    out_ += "null";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ += buf;
  }
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  separator();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, const std::vector<int32_t>& ids) {
  begin_array(k);
  for (int32_t id : ids) value(static_cast<int64_t>(id));
  return end_array();
}

}  // namespace tessera::cli
