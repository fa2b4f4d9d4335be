// The vocabulary of a byte-level BPE tokenizer (GGUF `tokenizer.ggml.model` "gpt2", or a
// Hugging Face tokenizer.json): token texts in GPT-2's byte alphabet, merges by rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tokenizer/vocab.h"

namespace tessera {

class WeightFile;

struct BpeVocab {
  std::vector<std::string> texts;   // [n_vocab] tokens; normal ones spelled in GPT-2's byte alphabet
  std::vector<TokenType> types;     // [n_vocab]
  std::vector<std::string> merges;  // "left right", rank = index (lower merges first)
  std::string pre;                  // pre-tokenizer name (tokenizer.ggml.pre), "" if none
  int32_t bos_id = -1;              // -1 when the vocabulary has none
  int32_t eos_id = -1;
  int32_t eot_id = -1;              // end of turn, also ends generation
  int32_t unk_id = -1;
  bool add_bos = false;             // BPE default when the key is absent: GPT-2 uses no BOS
  bool ignore_merges = false;       // a word that is itself a token is not merged (Llama 3)

  int32_t size() const { return static_cast<int32_t>(texts.size()); }
};

// Reads the `tokenizer.ggml.*` keys of a "gpt2" file: tokens and merges (required),
// token_type (absent: Normal, BOS/EOS Control), pre, bos/eos/eot/unknown_token_id and
// add_bos_token. The pre value also sets ignore_merges and the add_bos default, as in
// llama.cpp (see PreTokenizerSpec). Throws tessera::Error naming the file and the
// offending key or pre-tokenizer.
BpeVocab bpe_vocab_from_metadata(const WeightFile& file);

// Checks a vocabulary built by hand or from tokenizer.json: equal lengths, special ids in
// range, every merge "left right". `origin` names the source. Throws tessera::Error.
void validate_bpe_vocab(const BpeVocab& vocab, const std::string& origin);

}  // namespace tessera
