// The byte <-> character tables of byte-level BPE, built once: printable Latin-1 bytes
// map to themselves, the other 68 bytes to U+0100 onwards in byte order.
#include "core/tokenizer/byte_encoding.h"

#include <array>
#include <unordered_map>

#include "core/tokenizer/unicode_categories.h"

namespace tessera {
namespace {

bool maps_to_itself(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

std::string utf8_of(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (c >> 6)));
    s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xE0 | (c >> 12)));
    s.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  return s;
}

struct ByteTables {
  std::array<std::string, 256> byte_to_chars;
  std::unordered_map<char32_t, unsigned char> char_to_byte;

  ByteTables() {
    char32_t next_free = 0x100;
    for (int b = 0; b < 256; ++b) {
      const char32_t c = maps_to_itself(b) ? static_cast<char32_t>(b) : next_free++;
      byte_to_chars[b] = utf8_of(c);
      char_to_byte[c] = static_cast<unsigned char>(b);
    }
  }
};

const ByteTables& tables() {
  static const ByteTables t;
  return t;
}

}  // namespace

std::string bytes_to_bpe_chars(std::string_view bytes) {
  const ByteTables& t = tables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes) out += t.byte_to_chars[static_cast<unsigned char>(b)];
  return out;
}

std::string bpe_chars_to_bytes(std::string_view chars) {
  const ByteTables& t = tables();
  const CodepointText text = decode_codepoints(chars);
  std::string out;
  out.reserve(chars.size());
  for (size_t i = 0; i < text.codepoints.size(); ++i) {
    auto it = t.char_to_byte.find(text.codepoints[i]);
    if (it != t.char_to_byte.end()) out.push_back(static_cast<char>(it->second));
    else out.append(chars.substr(text.offsets[i], text.offsets[i + 1] - text.offsets[i]));
  }
  return out;
}

}  // namespace tessera
