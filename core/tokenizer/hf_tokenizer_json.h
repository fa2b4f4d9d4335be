// Reading a Hugging Face tokenizer.json: byte-level BPE (GPT-2, StarCoder, Llama 3, Qwen2
// families) into the vocabulary of the GGUF "gpt2" tokenizer, SentencePiece-style BPE
// with byte fallback (Llama 2, Gemma) into that of the GGUF "llama" tokenizer.
#pragma once

#include <memory>
#include <string>

#include "core/tokenizer/bpe_vocab.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/vocab.h"

namespace tessera {

// A byte-level BPE tokenizer.json: model.vocab, model.merges ("a b" strings or [a, b]
// pairs), model.ignore_merges and added_tokens (special ones become Control, the others
// UserDefined). The pre-tokenizer must be one Tessera implements, recognised by its
// structure: ByteLevel alone (GPT-2 rules), Digits(individual) then ByteLevel (StarCoder
// rules), or a Split with Llama 3's or Qwen2's exact regex then ByteLevel without its own
// regex. The normalizer must be absent or NFC; NFC is not applied (as in llama.cpp), so
// text that is not in NFC may encode differently from Hugging Face. BOS/EOS come from
// tokenizer_config.json beside it (see hf_json::read_special_tokens). Throws
// tessera::Error naming the file and what it cannot read.
BpeVocab bpe_vocab_from_tokenizer_json(const std::string& json_path);

// A SentencePiece-style tokenizer.json: a BPE model with byte_fallback, a normalizer that
// replaces " " by "▁" (U+2581), after Prepend("▁") when a space prefix is added (Llama 2
// style; none: Gemma style), and no pre-tokenizer (or Gemma's Split on " ", which has
// nothing left to split). The vocabulary keeps the file's merge list, so it merges by rank
// as Hugging Face does; "<0xXX>" tokens are Byte, model.unk_token Unknown. Throws
// tessera::Error naming the file and what it cannot read.
Vocab spm_vocab_from_tokenizer_json(const std::string& json_path);

// The tokenizer a tokenizer.json describes: byte-level BPE when its pre-tokenizer ends in
// ByteLevel, otherwise SentencePiece-style. Throws tessera::Error naming the file and
// what is not supported (a Unigram or WordPiece model, an unknown normalizer, ...).
std::unique_ptr<Tokenizer> tokenizer_from_tokenizer_json(const std::string& json_path);

}  // namespace tessera
