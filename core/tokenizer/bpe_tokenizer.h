// Byte-level BPE tokenizer (GPT-2 style, GGUF tokenizer model "gpt2"): text to bytes in
// GPT-2's printable alphabet, pre-tokenized into words, each merged by rank.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/bpe_merge.h"
#include "core/tokenizer/bpe_vocab.h"
#include "core/tokenizer/pre_tokenizer.h"
#include "core/tokenizer/token_index.h"
#include "core/tokenizer/tokenizer.h"

namespace tessera {

class BpeTokenizer : public Tokenizer {
 public:
  // Takes a vocabulary; throws tessera::Error if it is invalid or its pre-tokenizer unknown.
  explicit BpeTokenizer(BpeVocab vocab);
  static BpeTokenizer from_weight_file(const WeightFile& file);

  // As llama.cpp with parse_special = false: user-defined tokens found verbatim in the
  // text become their ids (longest first); the rest is pre-tokenized and merged (with
  // ignore_merges, a word that is a token is taken whole). Control-token texts stay
  // text. A merged piece missing from the vocabulary becomes the unknown token, or
  // throws tessera::Error when there is none.
  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  // Normal tokens: their characters mapped back to bytes; user-defined tokens: their
  // text; control, unknown and unused tokens: nothing. `prev_id` does not matter here.
  std::string token_to_piece(int32_t id, int32_t prev_id) const override;

  int32_t n_vocab() const override { return vocab_.size(); }
  int32_t bos() const override { return vocab_.bos_id; }
  int32_t eos() const override { return vocab_.eos_id; }
  bool add_bos() const override { return vocab_.add_bos; }
  bool is_control(int32_t id) const override;
  // EOS or end-of-turn.
  bool ends_text(int32_t id) const override;
  const std::string& token_text(int32_t id) const override;
  int32_t find_token(std::string_view text) const override { return index_.find(text); }
  const BpeVocab& vocab() const { return vocab_; }

 private:
  void check_id(int32_t id, const char* what) const;
  void encode_text(std::string_view text, std::vector<int32_t>& out) const;

  BpeVocab vocab_;
  TokenIndex index_;
  BpeRanks ranks_;
  PreTokenizer pre_;
  std::vector<int32_t> user_defined_;  // user-defined ids, longest text first
};

}  // namespace tessera
