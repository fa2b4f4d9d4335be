// The engine's manager of the paged KV cache: sequences by id, their block tables,
// the byte budget, and the per-step inputs (slots, block tables) the kernels read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "core/kv/block_allocator.h"
#include "core/kv/block_table.h"

namespace tessera {

using SeqId = int64_t;

struct KvCacheConfig {
  int32_t block_size = 16;  // tokens per block
  int64_t n_blocks = 0;     // blocks in every layer's K and V cache tensor
  // Bytes one token takes over all layers (sum of 2 * kv_dim * dtype size); only
  // used to state the budget in messages, 0 = unknown.
  uint64_t bytes_per_token = 0;
};

// Blocks of `block_size` tokens that fit in `budget_bytes`, rounded down, where a
// token takes `bytes_per_token` over all layers (sum of 2 * kv_dim * dtype size).
// Capped at the blocks that int32 slots can address. Throws on block_size <= 0 or
// bytes_per_token == 0.
int64_t kv_blocks_for_budget(uint64_t budget_bytes, int32_t block_size,
                             uint64_t bytes_per_token);

struct KvCacheStats {
  int64_t blocks_total = 0;
  int64_t blocks_used = 0;
  int64_t blocks_shared = 0;   // blocks with more than one reference
  int64_t n_sequences = 0;
  int64_t tokens_stored = 0;   // cache rows holding a token, shared rows counted once
  int64_t tokens_logical = 0;  // sum of sequence lengths, shared rows counted per sequence
  int64_t slots_reserved = 0;  // blocks_used * block_size
  double waste_fraction = 0;   // (slots_reserved - tokens_stored) / slots_reserved; 0 if none
};

// Sequence ids are handed out in increasing order from 0 and never reused.
// Unknown ids throw tessera::Error.
class KvCacheBook {
 public:
  explicit KvCacheBook(KvCacheConfig config);

  SeqId add_sequence();
  // A new sequence sharing all of `parent`'s tokens (prefix sharing, parallel
  // samples); the first write into a shared, partly filled block copies it.
  SeqId fork_sequence(SeqId parent);
  // Drops the sequence and its block references.
  void free_sequence(SeqId seq);
  bool has_sequence(SeqId seq) const;

  // Rows for the next n_tokens tokens of `seq`, plus the block copy to perform on
  // the device first, if any. Throws "KV cache full: ..." when the free blocks do
  // not suffice; nothing changes then.
  SlotReservation reserve(SeqId seq, int64_t n_tokens);
  // Same, but std::nullopt instead of the error (for a scheduler that preempts).
  std::optional<SlotReservation> try_reserve(SeqId seq, int64_t n_tokens);
  // Blocks reserve(seq, n_tokens) would take; compare with free_blocks().
  int64_t blocks_needed(SeqId seq, int64_t n_tokens) const;

  int64_t n_tokens(SeqId seq) const;
  // Position of the sequence's next token (= tokens stored so far).
  int64_t next_position(SeqId seq) const { return n_tokens(seq); }
  const BlockTable& table(SeqId seq) const;

  // Widest block table among `seqs`: the smallest valid max_blocks_per_seq.
  int32_t max_blocks_of(std::span<const SeqId> seqs) const;
  // Writes the block tables of `seqs` as rows of out [seqs.size(), max_blocks_per_seq],
  // padded with block 0 (a valid id: kernels never read past a sequence's length).
  // Throws if a sequence has more blocks than max_blocks_per_seq.
  void fill_block_tables(std::span<const SeqId> seqs, int32_t* out,
                         int32_t max_blocks_per_seq) const;

  int64_t free_blocks() const { return allocator_.n_free(); }
  KvCacheStats stats() const;
  const KvCacheConfig& config() const { return config_; }
  const BlockAllocator& allocator() const { return allocator_; }
  // Ids of the live sequences, ascending.
  std::vector<SeqId> sequences() const;

 private:
  BlockTable& table_of(SeqId seq);
  [[noreturn]] void throw_cache_full(SeqId seq, int64_t blocks_needed) const;

  KvCacheConfig config_;
  BlockAllocator allocator_;
  std::map<SeqId, BlockTable> tables_;
  SeqId next_id_ = 0;
};

}  // namespace tessera
