// The tokenizer vocabulary as stored in a weights file's `tokenizer.ggml.*` metadata:
// token texts, merge scores, token types and the special ids, validated once on load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

class WeightFile;

// Token types with their GGUF codes (tokenizer.ggml.token_type).
enum class TokenType : int32_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,       // BOS, EOS and other markers: never produced from text, decode to ""
  UserDefined = 4,   // matched verbatim in the input before merging
  Unused = 5,
  Byte = 6,          // byte fallback token, text "<0xXX>"
};

struct Vocab {
  std::vector<std::string> texts;   // [n_vocab] token texts; SentencePiece spaces are U+2581
  std::vector<float> scores;        // [n_vocab] merge priority: higher merges first
  std::vector<TokenType> types;     // [n_vocab]
  int32_t bos_id = -1;              // -1 when the vocabulary has none
  int32_t eos_id = -1;
  int32_t unk_id = -1;
  bool add_bos = true;              // prepend BOS by default (SPM default when the key is absent)
  bool add_eos = false;
  bool add_space_prefix = true;     // SentencePiece "dummy prefix": a space before the text
  // BPE merges "left right", highest priority first: a tokenizer.json's model.merges.
  // Empty for GGUF vocabularies, which merge by score. When set, adjacent pieces merge in
  // this order instead (Hugging Face's BPE), and scores are not used.
  std::vector<std::string> merges;

  int32_t size() const { return static_cast<int32_t>(texts.size()); }
};

// Reads and validates the `tokenizer.ggml.*` keys of `file`:
//   model (must be "llama": SentencePiece BPE), tokens (required), scores (default 0),
//   token_type (when absent: inferred, "<0xXX>" texts are Byte, BOS/EOS Control, UNK Unknown),
//   bos/eos/unknown_token_id (absent or 0xFFFFFFFF: none), add_bos_token (default true),
//   add_eos_token (default false), add_space_prefix (default true).
// Throws tessera::Error naming the file and the offending key.
Vocab vocab_from_metadata(const WeightFile& file);

// Checks the invariants of a hand-built vocabulary (equal array lengths, special ids in
// range, every merge "left right"). `origin` names where it came from, for the message.
// Throws tessera::Error.
void validate_vocab(const Vocab& vocab, const std::string& origin);

}  // namespace tessera
