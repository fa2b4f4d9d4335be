// Streaming detokenization: turns generated token ids, one at a time, into text that is
// safe to print, holding back a UTF-8 character until all its byte tokens have arrived.
#pragma once

#include <cstdint>
#include <string>

#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/utf8.h"

namespace tessera {

class TokenStreamDecoder {
 public:
  // `tokenizer` must outlive the decoder. `prev_id` is the token before the first one
  // pushed (the last prompt token), or -1 at the start of a text.
  explicit TokenStreamDecoder(const Tokenizer& tokenizer, int32_t prev_id = -1)
      : tokenizer_(tokenizer), prev_id_(prev_id) {}

  // Adds one token; returns the text that became complete (possibly empty).
  std::string push(int32_t id);
  // Ends the stream: returns any bytes still held back (an unfinished character).
  std::string finish() { return buffer_.flush(); }

 private:
  const Tokenizer& tokenizer_;
  int32_t prev_id_;
  Utf8StreamBuffer buffer_;
};

}  // namespace tessera
