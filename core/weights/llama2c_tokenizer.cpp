// llama2.c tokenizer file → tokenizer.ggml.* metadata; see llama2c_tokenizer.h.
#include "core/weights/llama2c_tokenizer.h"

#include "core/util/mapped_file.h"
#include "core/weights/byte_reader.h"
#include "core/weights/gguf_types.h"
#include "core/weights/gguf_values.h"

namespace tessera {
namespace {

// GGUF token types (llama.cpp's convention).
constexpr int32_t kTokenNormal = 1, kTokenUnknown = 2, kTokenControl = 3, kTokenByte = 6;
constexpr int64_t kUnkId = 0, kBosId = 1, kEosId = 2;

bool is_byte_token(std::string_view s) {
  auto hex = [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'F'); };
  return s.size() == 6 && s.substr(0, 3) == "<0x" && hex(s[3]) && hex(s[4]) && s[5] == '>';
}

// SentencePiece writes a space as U+2581 "▁"; llama2.c's export had turned it back.
std::string with_sentencepiece_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == ' ') {
      out += "\xe2\x96\x81";
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

void read_llama2c_tokenizer(const std::string& path, int64_t vocab_size,
                            std::map<std::string, MetaValue>& metadata) {
  const MappedFile file(path);
  ByteReader r(file.bytes(), path);
  r.read<int32_t>("max_token_length");

  MetaArray tokens, scores, types;
  tokens.reserve(static_cast<size_t>(vocab_size));
  scores.reserve(static_cast<size_t>(vocab_size));
  types.reserve(static_cast<size_t>(vocab_size));
  for (int64_t id = 0; id < vocab_size; ++id) {
    const std::string what = "token " + std::to_string(id) + " of " + std::to_string(vocab_size);
    const float score = r.read<float>(what);
    const uint64_t length_at = r.offset();
    const auto length = r.read<int32_t>(what);
    if (length < 0 || static_cast<uint64_t>(length) > r.remaining()) {
      r.fail(length_at, what + ": length " + std::to_string(length) +
                            " runs past the end of the file (" + std::to_string(r.remaining()) +
                            " bytes remain)");
    }
    const std::string_view text = r.read_bytes(static_cast<uint64_t>(length), what);

    std::string piece;
    int32_t type = kTokenNormal;
    if (id == kUnkId) {
      piece = "<unk>", type = kTokenUnknown;
    } else if (id == kBosId) {
      piece = "<s>", type = kTokenControl;
    } else if (id == kEosId) {
      piece = "</s>", type = kTokenControl;
    } else if (is_byte_token(text)) {
      piece = std::string(text), type = kTokenByte;
    } else {
      piece = with_sentencepiece_spaces(text);
    }
    tokens.push_back(gguf::make_string(std::move(piece)));
    scores.push_back(gguf::make_f32(score));
    types.push_back(gguf::make_i32(type));
  }
  if (r.remaining() != 0) {
    r.fail(r.offset(), std::to_string(r.remaining()) + " bytes follow the last of the " +
                           std::to_string(vocab_size) +
                           " tokens the checkpoint expects (a tokenizer of another vocabulary?)");
  }

  metadata["tokenizer.ggml.model"] = gguf::make_string("llama");
  metadata["tokenizer.ggml.tokens"] = gguf::make_array(gguf::kString, std::move(tokens));
  metadata["tokenizer.ggml.scores"] = gguf::make_array(gguf::kFloat32, std::move(scores));
  metadata["tokenizer.ggml.token_type"] = gguf::make_array(gguf::kInt32, std::move(types));
  metadata["tokenizer.ggml.bos_token_id"] = gguf::make_u32(kBosId);
  metadata["tokenizer.ggml.eos_token_id"] = gguf::make_u32(kEosId);
  metadata["tokenizer.ggml.unknown_token_id"] = gguf::make_u32(kUnkId);
}

}  // namespace tessera
