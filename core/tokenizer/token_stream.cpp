// Streaming detokenization: pieces of consecutive tokens through a UTF-8 hold-back buffer.
#include "core/tokenizer/token_stream.h"

namespace tessera {

std::string TokenStreamDecoder::push(int32_t id) {
  std::string piece = tokenizer_.token_to_piece(id, prev_id_);
  prev_id_ = id;
  return buffer_.push(piece);
}

}  // namespace tessera
