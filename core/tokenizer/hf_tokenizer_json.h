// Reading a Hugging Face tokenizer.json of a byte-level BPE model (model.type "BPE" with a
// ByteLevel pre-tokenizer) into the same vocabulary the GGUF "gpt2" tokenizer uses.
#pragma once

#include <string>

#include "core/tokenizer/bpe_vocab.h"

namespace tessera {

// Reads `json_path`: model.vocab, model.merges ("a b" strings or [a, b] pairs) and
// added_tokens (special ones become Control, the others UserDefined). The pre-tokenizer
// must be ByteLevel alone (GPT-2 rules) or Digits(individual) then ByteLevel (StarCoder
// rules). EOS/BOS come from tokenizer_config.json beside it when present. Throws
// tessera::Error naming the file and what it cannot read.
BpeVocab bpe_vocab_from_tokenizer_json(const std::string& json_path);

}  // namespace tessera
