// SentencePiece-style BPE tokenizer (the "llama" tokenizer of GGUF files, and Llama 2 /
// Gemma style tokenizer.json files): text to token ids by score-driven (or, with a merge
// list, rank-driven) merges with byte fallback, and token ids back to text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/bpe_merge.h"
#include "core/tokenizer/token_index.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/vocab.h"

namespace tessera {

class WeightFile;

class SpmTokenizer : public Tokenizer {
 public:
  // Takes a validated vocabulary (see vocab_from_metadata / validate_vocab).
  explicit SpmTokenizer(Vocab vocab);
  // Reads the vocabulary of a weights file; throws tessera::Error as vocab_from_metadata.
  static SpmTokenizer from_weight_file(const WeightFile& file);

  // Text to ids, as llama.cpp's SPM tokenizer with parse_special = false:
  //  1. user-defined tokens found verbatim in the text become their ids (longest first);
  //  2. each remaining fragment gets a leading space (the dummy prefix) when
  //     add_space_prefix is set and it starts the text or follows a user-defined token;
  //  3. spaces become U+2581 and pieces are merged by score, or by rank when the
  //     vocabulary has merges (see spm_merge.h).
  // Control-token texts such as "<s>" are plain text here. With `add_bos` the BOS id
  // comes first (throws tessera::Error if the vocabulary has none). "" gives no tokens.
  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;

  // Ids to text: the concatenation of token_to_piece over the ids, where the first id
  // counts as following "no token" (prev_id -1). Throws tessera::Error on an id out of
  // range, naming it and its position.
  std::string decode(const std::vector<int32_t>& ids) const override;

  // The bytes one token adds to the output: U+2581 becomes a space, a byte token
  // <0xXX> its raw byte (possibly part of a multi-byte character, see Utf8StreamBuffer),
  // control and unused tokens nothing, the unknown token U+2585, user-defined tokens
  // their text. When the vocabulary adds a dummy prefix and `prev_id` is BOS or -1
  // (start of text), a leading space of a normal token is dropped (it was the prefix).
  std::string token_to_piece(int32_t id, int32_t prev_id) const override;

  int32_t n_vocab() const override { return vocab_.size(); }
  int32_t bos() const override { return vocab_.bos_id; }  // -1 if none
  int32_t eos() const override { return vocab_.eos_id; }  // -1 if none
  bool add_bos() const override { return vocab_.add_bos; }
  // True for control tokens (BOS, EOS, ...); false for other tokens and ids out of range.
  bool is_control(int32_t id) const override;
  // Generation stops here: EOS, or a BOS (it starts a new document, as in llama2.c models).
  bool ends_text(int32_t id) const override { return id == vocab_.eos_id || id == vocab_.bos_id; }
  // The stored text of a token, for debugging ("▁Hello", "<0x0A>"); throws if out of range.
  const std::string& token_text(int32_t id) const override;
  // The id of the token whose stored text is exactly `text`, or -1.
  int32_t find_token(std::string_view text) const override { return index_.find(text); }
  const Vocab& vocab() const { return vocab_; }

 private:
  void check_id(int32_t id, const char* what) const;
  void encode_fragment(std::string_view text, bool add_prefix, std::vector<int32_t>& out) const;

  Vocab vocab_;
  TokenIndex index_;
  std::array<int32_t, 256> byte_tokens_{};  // fallback id per byte value, -1 if none
  std::optional<BpeRanks> ranks_;           // when the vocabulary has merges
  std::vector<int32_t> user_defined_;       // user-defined ids, longest text first
};

}  // namespace tessera
