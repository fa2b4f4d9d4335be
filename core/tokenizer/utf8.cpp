// UTF-8 character lengths and the hold-back buffer used when streaming decoded tokens.
#include "core/tokenizer/utf8.h"

namespace tessera {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Where the incomplete character at the end of `s` starts, or s.size() when the text
// ends on a character boundary (or on bytes that can never be completed).
size_t incomplete_tail_start(std::string_view s) {
  // A character is at most 4 bytes, so its lead byte is among the last 3 when incomplete.
  size_t back = 0;
  while (back < 3 && back < s.size()) {
    ++back;
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if (is_continuation(c)) continue;
    const size_t need = utf8_sequence_length(c);
    return need > back ? s.size() - back : s.size();
  }
  return s.size();  // only continuation bytes: stray, pass them through
}

}  // namespace

size_t utf8_sequence_length(unsigned char lead) {
  // Indexed by the high nibble: 0xxx -> 1, 10xx (continuation) -> 1, 110x -> 2, 1110 -> 3,
  // 1111 -> 4.
  static constexpr size_t kLength[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLength[lead >> 4];
}

std::string Utf8StreamBuffer::push(std::string_view bytes) {
  pending_.append(bytes);
  const size_t cut = incomplete_tail_start(pending_);
  std::string ready = pending_.substr(0, cut);
  pending_.erase(0, cut);
  return ready;
}

std::string Utf8StreamBuffer::flush() {
  std::string rest;
  rest.swap(pending_);
  return rest;
}

}  // namespace tessera
