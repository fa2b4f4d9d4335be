#include "core/chat/template_strings.h"

#include <algorithm>
#include <cctype>

namespace tessera::chat {

// The bytes of the UTF-8 code point that starts at s[i] (1 for a stray byte).
size_t code_point_bytes(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  return std::min(n, s.size() - i);
}

// Python indexes strings by code point.
size_t code_point_count(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); i += code_point_bytes(s, i)) ++n;
  return n;
}

// Where each code point of `s` starts, and s.size() last.
std::vector<size_t> code_point_starts(const std::string& s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size(); i += code_point_bytes(s, i)) out.push_back(i);
  out.push_back(s.size());
  return out;
}

bool is_py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string strip(const std::string& s, const std::string* chars, bool left, bool right) {
  const auto drop = [&](char c) { return chars ? chars->find(c) != std::string::npos : is_py_space(c); };
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && drop(s[b])) ++b;
  }
  if (right) {
    while (e > b && drop(s[e - 1])) --e;
  }
  return s.substr(b, e - b);
}

std::string title_case(const std::string& s, bool only_first) {
  std::string out = s;
  bool start = true;
  for (char& c : out) {
    const bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (alpha) {
      c = static_cast<char>(start ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
      if (only_first) start = false;
    }
    if (!only_first) start = !alpha;
  }
  return out;
}

std::string map_chars(std::string s, int (*f)(int)) {
  for (char& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace tessera::chat
