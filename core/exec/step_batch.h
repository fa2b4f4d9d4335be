// What one graph step runs on: the tokens of one or more sequences, where their
// K/V rows go in the paged cache, and which rows' logits come back.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

struct StepBatch {
  std::vector<int32_t> token_ids;     // [T]
  std::vector<int32_t> positions;     // [T] position of each token in its sequence
  std::vector<int32_t> kv_slots;      // [T] block * block_size + offset
  std::vector<int32_t> token_seq;     // [T] index of each token's sequence (row of block_tables)
  int32_t n_seqs = 1;
  int32_t max_blocks_per_seq = 0;
  std::vector<int32_t> block_tables;  // [n_seqs, max_blocks_per_seq]
  std::vector<int32_t> output_rows;   // [Outputs] token rows whose logits are wanted

  int32_t n_tokens() const { return static_cast<int32_t>(token_ids.size()); }
};

// Shape of the paged KV cache the executor allocates (one tensor per layer and K/V).
struct KvCacheShape {
  int32_t block_size = 16;
  int64_t n_blocks = 0;
};

}  // namespace tessera
