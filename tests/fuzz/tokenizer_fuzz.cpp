// Fuzzes the two tokenizer algorithms with real vocabularies: stories260K's SentencePiece
// one and SmolLM2's byte-level BPE one. The first input byte picks what the rest is:
//   0: text to encode (then decode); byte-level BPE must give the text back exactly when
//      its vocabulary has a token for every byte of it
//   1: token ids, 16 bits each (little-endian, signed), to decode
//   2: token ids, 32 bits each, to decode
//   3: 32-bit ids for the per-token calls (token_to_piece, token_text, is_control, ...)
// Bit 2 of that byte asks for a BOS when encoding. Ids out of range must be a
// tessera::Error, and decoding ids in range must succeed, streamed or not, alike.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/byte_encoding.h"
#include "core/tokenizer/token_stream.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "fuzz_support.h"

namespace {

using tessera::fuzz::require;

struct Vocabulary {
  std::unique_ptr<tessera::GgufFile> file;  // the tokenizer reads its metadata
  std::unique_ptr<tessera::Tokenizer> tokenizer;
  bool byte_level;
  // Byte-level only: whether byte b has a token of its own. SmolLM2's vocabulary lacks
  // a few (0x04, 0x16, 0xC0, 0xFF, ...): those encode as its unknown token, so texts
  // holding them do not come back.
  std::array<bool, 256> has_byte{};
};

std::vector<Vocabulary>& vocabularies() {
  static std::vector<Vocabulary> all = [] {
    std::vector<Vocabulary> v;
    const auto load = [&](const std::string& path, bool byte_level) {
      auto file = tessera::GgufFile::open(path);
      auto tokenizer = tessera::make_tokenizer(*file);
      std::array<bool, 256> has_byte{};
      for (int b = 0; b < 256; ++b) {
        has_byte[b] = tokenizer->find_token(tessera::bytes_to_bpe_chars(std::string(1, static_cast<char>(b)))) >= 0;
      }
      v.push_back({std::move(file), std::move(tokenizer), byte_level, has_byte});
    };
    load(tessera::fuzz::testdata_path("stories260K/stories260K.gguf"), false);
    load(tessera::fuzz::source_path("tests/fixtures/tokenizer/ggml-vocab-smollm2.gguf"), true);
    return v;
  }();
  return all;
}

template <typename T>
std::vector<int32_t> read_ids(const uint8_t* data, size_t size) {
  std::vector<int32_t> ids(size / sizeof(T));
  for (size_t i = 0; i < ids.size(); ++i) {
    T id;
    std::memcpy(&id, data + i * sizeof(T), sizeof(T));
    ids[i] = id;
  }
  return ids;
}

bool all_in_range(const std::vector<int32_t>& ids, int32_t n_vocab) {
  for (const int32_t id : ids) {
    if (id < 0 || id >= n_vocab) return false;
  }
  return true;
}

void check_decode(const tessera::Tokenizer& tok, const std::vector<int32_t>& ids) {
  const bool valid = all_in_range(ids, tok.n_vocab());
  std::string text;
  try {
    text = tok.decode(ids);
  } catch (const tessera::Error&) {
    require(!valid, "decoding ids in range failed");
    return;
  }
  require(valid, "decoding an id out of range succeeded");
  tessera::TokenStreamDecoder stream(tok);
  std::string streamed;
  for (const int32_t id : ids) streamed += stream.push(id);
  streamed += stream.finish();
  require(streamed == text, "streamed decoding differs from decode()");
}

void check_encode(const Vocabulary& v, std::string_view text, bool add_bos) {
  const tessera::Tokenizer& tok = *v.tokenizer;
  std::vector<int32_t> ids;
  try {
    ids = tok.encode(text, add_bos);
  } catch (const tessera::Error&) {
    return;  // e.g. a BOS the vocabulary does not have
  }
  require(all_in_range(ids, tok.n_vocab()), "encoding gave an id out of range");
  const std::string decoded = tok.decode(ids);
  if (!v.byte_level) return;
  for (const char c : text) {
    if (!v.has_byte[static_cast<unsigned char>(c)]) return;
  }
  require(decoded == text, "byte-level BPE did not give the encoded text back");
}

void check_token_calls(const tessera::Tokenizer& tok, const std::vector<int32_t>& ids) {
  int32_t prev = -1;
  for (const int32_t id : ids) {
    const bool valid = id >= 0 && id < tok.n_vocab();
    if (!valid) require(!tok.is_control(id), "an id out of range is a control token");
    (void)tok.ends_text(id);
    try {
      (void)tok.token_to_piece(id, prev);
      (void)tok.token_text(id);
      require(valid, "an id out of range has a piece");
      require(tok.find_token(tok.token_text(id)) >= 0, "a token's text is not found");
    } catch (const tessera::Error&) {
      require(!valid, "an id in range has no piece");
    }
    prev = id;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] & 3;
  const bool add_bos = (data[0] & 4) != 0;
  ++data;
  --size;
  for (const Vocabulary& v : vocabularies()) {
    switch (mode) {
      case 0: check_encode(v, std::string_view(reinterpret_cast<const char*>(data), size), add_bos); break;
      case 1: check_decode(*v.tokenizer, read_ids<int16_t>(data, size)); break;
      case 2: check_decode(*v.tokenizer, read_ids<int32_t>(data, size)); break;
      default: check_token_calls(*v.tokenizer, read_ids<int32_t>(data, size)); break;
    }
  }
  return 0;
}
