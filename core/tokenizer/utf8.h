// UTF-8 helpers of the tokenizer: the length of a character from its first byte, and a
// stream buffer that holds back a character whose bytes arrive in separate tokens.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera {

// Bytes of the UTF-8 sequence that starts with `lead`: 1 for ASCII and for bytes that
// cannot start a sequence (stray continuation bytes count as one character each), 2..4
// for lead bytes. This is how SentencePiece splits text into characters.
size_t utf8_sequence_length(unsigned char lead);

// Collects the byte pieces of a token stream and releases only whole UTF-8 characters:
// a trailing sequence that is still missing continuation bytes is held back until the
// next push completes it. Invalid bytes are never held: they pass through unchanged, so
// the output is exactly the input, only delayed.
class Utf8StreamBuffer {
 public:
  // Appends `bytes`; returns everything up to the start of an incomplete trailing character.
  std::string push(std::string_view bytes);
  // Returns what is held back (an unfinished character at the end of the stream) and clears it.
  std::string flush();
  // Bytes currently held back (0..3).
  size_t pending() const { return pending_.size(); }

 private:
  std::string pending_;
};

}  // namespace tessera
