// The core of SentencePiece BPE encoding: split one text fragment into UTF-8 characters,
// then merge adjacent pieces by score until no adjacent pair forms a token.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/tokenizer/bpe_merge.h"
#include "core/tokenizer/token_index.h"

namespace tessera {

// What the merge needs from the vocabulary.
struct SpmMergeTables {
  const TokenIndex& index;
  const std::vector<float>& scores;             // [n_vocab]
  const std::array<int32_t, 256>& byte_tokens;  // fallback id for each byte value, -1 if none
  const BpeRanks* ranks = nullptr;              // merge ranks, or null to merge by score
};

// Encodes `text` (spaces already escaped to U+2581, dummy prefix already added) and
// appends the ids to `out`. By score (no ranks): the adjacent pair whose concatenation is
// the token with the highest score is merged first (leftmost on ties), exactly as
// llama.cpp's SPM tokenizer. By rank: the adjacent pair with the lowest merge rank
// (leftmost on ties), as Hugging Face's BPE model with byte fallback. Pieces that are not
// tokens fall back to one byte token per byte; throws tessera::Error if a byte has no
// fallback token.
void spm_merge_append(std::string_view text, const SpmMergeTables& tables,
                      std::vector<int32_t>& out);

}  // namespace tessera
