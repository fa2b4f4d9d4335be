// Python's string operations as chat templates use them on UTF-8 text: indexing and
// counting by code point, strip/lstrip/rstrip, title/capitalize, upper/lower.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessera::chat {

// The bytes of the UTF-8 code point that starts at s[i] (1 for a stray byte).
size_t code_point_bytes(const std::string& s, size_t i);
// Python's whitespace for str.split() and str.strip(): space, \t \n \r \v \f.
bool is_py_space(char c);
// Python indexes strings by code point.
size_t code_point_count(const std::string& s);
// Where each code point of `s` starts, and s.size() last.
std::vector<size_t> code_point_starts(const std::string& s);
// str.strip(chars) on the chosen sides; chars null: whitespace.
std::string strip(const std::string& s, const std::string* chars, bool left, bool right);
// str.title() (every word), or with only_first the first letter (str.capitalize()).
std::string title_case(const std::string& s, bool only_first);
// `s` with `f` (toupper, tolower) applied to each ASCII byte.
std::string map_chars(std::string s, int (*f)(int));

}  // namespace tessera::chat
