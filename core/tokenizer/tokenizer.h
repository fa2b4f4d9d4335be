// What the engine asks of a tokenizer, whatever its algorithm (SentencePiece, byte-level
// BPE), and the factory that picks the algorithm a weights file names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class WeightFile;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Text to ids with parse_special = false (control-token texts such as "<s>" stay
  // text); with `add_bos` the BOS id comes first (throws tessera::Error if none).
  virtual std::vector<int32_t> encode(std::string_view text, bool add_bos) const = 0;
  // Ids to text: token_to_piece over the ids, the first one following "no token" (-1).
  // Throws tessera::Error on an id out of range, naming it and its position.
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  // The bytes one token adds to the output after `prev_id` (-1 at the start of a text);
  // may be part of a UTF-8 character (see Utf8StreamBuffer). Control tokens give "".
  virtual std::string token_to_piece(int32_t id, int32_t prev_id) const = 0;

  virtual int32_t n_vocab() const = 0;
  virtual int32_t bos() const = 0;  // -1 if none
  virtual int32_t eos() const = 0;  // -1 if none
  // Whether prompts get a BOS by default (the vocabulary's add_bos_token).
  virtual bool add_bos() const = 0;
  // True for control tokens; false for other tokens and ids out of range.
  virtual bool is_control(int32_t id) const = 0;
  // Generation stops at this token.
  virtual bool ends_text(int32_t id) const = 0;
  // The stored text of a token, for debugging; throws if out of range.
  virtual const std::string& token_text(int32_t id) const = 0;
  // The id of the token whose stored text is exactly `text`, or -1.
  virtual int32_t find_token(std::string_view text) const = 0;
};

// The tokenizer of a weights file, chosen by tokenizer.ggml.model: "llama" gives the
// SentencePiece tokenizer, "gpt2" the byte-level BPE one. Throws tessera::Error naming
// the file and the model when the key is missing or names another algorithm.
std::unique_ptr<Tokenizer> make_tokenizer(const WeightFile& file);

}  // namespace tessera
