// The engine's manager of the paged KV cache: sequences by id, their block tables,
// the byte budget, prefix caching, sliding-window release, and the per-step inputs
// (slots, block tables) the kernels read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "core/kv/block_allocator.h"
#include "core/kv/block_table.h"
#include "core/kv/prefix_index.h"

namespace tessera {

using SeqId = int64_t;

struct KvCacheConfig {
  int32_t block_size = 16;  // tokens per block
  int64_t n_blocks = 0;     // blocks in every layer's K and V cache tensor
  // Bytes one token takes over all layers (sum of 2 * kv_dim * dtype size); only
  // used to state the budget in messages, 0 = unknown.
  uint64_t bytes_per_token = 0;
  // Full blocks whose tokens are known (reserve_tokens) become reusable by later
  // sequences that start with the same tokens (add_sequence_with_prefix), and stay
  // so after they are freed until evicted, least recently freed first.
  bool prefix_caching = false;
  // > 0: every attention layer reads only the last `window` positions, so blocks
  // behind them are given back as the sequence grows. 0: none (full attention).
  int32_t window = 0;

  // Bytes of K/V the blocks hold (0 when bytes_per_token is unknown).
  double budget_bytes() const {
    return static_cast<double>(bytes_per_token) * static_cast<double>(n_blocks * block_size);
  }
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
  int64_t blocks_cached = 0;   // free blocks still holding a reusable prefix (not in blocks_used)
  int64_t prefix_query_tokens = 0;  // prompt tokens looked up by add_sequence_with_prefix
  int64_t prefix_hit_tokens = 0;    // of those, tokens found in cached blocks
  double prefix_hit_rate = 0;       // prefix_hit_tokens / prefix_query_tokens; 0 if none
  int64_t blocks_released_by_window = 0;  // since the start
};

// What add_sequence_with_prefix would reuse for a prompt.
struct PrefixProbe {
  int64_t cached_tokens = 0;    // leading tokens already in cached blocks (whole blocks)
  int64_t blocks_to_revive = 0; // of those blocks, the ones that are free now (taking them uses free blocks)
};

struct PrefixHit {
  SeqId seq = -1;
  int64_t cached_tokens = 0;  // the sequence starts with this many tokens already computed
};

// Sequence ids are handed out in increasing order from 0 and never reused.
// Unknown ids throw tessera::Error. Not copyable or movable: the allocator calls
// back into the prefix index.
class KvCacheBook {
 public:
  explicit KvCacheBook(KvCacheConfig config);
  KvCacheBook(const KvCacheBook&) = delete;
  KvCacheBook& operator=(const KvCacheBook&) = delete;

  SeqId add_sequence();
  // A new sequence that starts with the longest run of whole cached blocks matching
  // the head of `tokens`, leaving at least the last token to compute (its logits
  // are what the caller wants). Counts the lookup in the hit rate. Without prefix
  // caching: add_sequence() with nothing cached. The caller reserves the rest with
  // reserve_tokens(seq, tokens.subspan(hit.cached_tokens)).
  PrefixHit add_sequence_with_prefix(std::span<const int32_t> tokens);
  // What add_sequence_with_prefix(tokens) would reuse, changing nothing.
  PrefixProbe probe_prefix(std::span<const int32_t> tokens) const;
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
  // With a sliding window, blocks that no new token can attend to are given back
  // first, even when the reservation then fails.
  std::optional<SlotReservation> try_reserve(SeqId seq, int64_t n_tokens);
  // The same with the token ids, which prefix caching needs to key full blocks. A
  // sequence that was ever reserved without ids is never cached.
  SlotReservation reserve_tokens(SeqId seq, std::span<const int32_t> tokens);
  std::optional<SlotReservation> try_reserve_tokens(SeqId seq, std::span<const int32_t> tokens);
  // The rows reserved so far have been written on the device: the sequence's full
  // blocks become reusable prefixes. Call after the step that wrote them ran; a
  // reservation dropped without running (preemption) must never be committed.
  void commit(SeqId seq);
  // Blocks reserve(seq, n_tokens) would take; compare with free_blocks().
  int64_t blocks_needed(SeqId seq, int64_t n_tokens) const;

  int64_t n_tokens(SeqId seq) const;
  // Position of the sequence's next token (= tokens stored so far).
  int64_t next_position(SeqId seq) const { return n_tokens(seq); }
  const BlockTable& table(SeqId seq) const;

  // Widest block table among `seqs`: the smallest valid max_blocks_per_seq.
  int32_t max_blocks_of(std::span<const SeqId> seqs) const;
  // Writes the block tables of `seqs` as rows of out [seqs.size(), max_blocks_per_seq],
  // padded with block 0 (a valid id: kernels never read past a sequence's length);
  // blocks released behind a sliding window read 0 too (kernels never read them).
  // Throws if a sequence has more blocks than max_blocks_per_seq.
  void fill_block_tables(std::span<const SeqId> seqs, int32_t* out,
                         int32_t max_blocks_per_seq) const;

  // Blocks a reservation can take: plain free plus cached free (evicted on demand).
  int64_t free_blocks() const { return allocator_.n_free(); }
  KvCacheStats stats() const;
  // Zeroes the counters that accumulate (prefix queries and hits, window releases).
  void reset_counters();
  const KvCacheConfig& config() const { return config_; }
  const BlockAllocator& allocator() const { return allocator_; }
  // Ids of the live sequences, ascending.
  std::vector<SeqId> sequences() const;
  // Blocks whose rows matter: in use, or free but holding a cached prefix. Ascending.
  // Moving the cache to another device copies these and no others.
  std::vector<int32_t> occupied_blocks() const;

  // Renumbering the cache into `n_blocks` blocks, for a move to a device where it is
  // sized differently. plan_resize gives the new id of each block (-1: dropped):
  // blocks in use keep their rows, in the order of their old ids, then free blocks
  // holding a cached prefix, as many as fit, the most recently freed first. It
  // throws, changing nothing, when more than n_blocks blocks are in use (preempt
  // first). resize applies a plan: allocator, block tables and prefix index
  // renumbered, the dropped cached blocks forgotten. Copy the rows (old id -> new id)
  // to the new cache before the next step.
  std::vector<int32_t> plan_resize(int64_t n_blocks) const;
  void resize(int64_t n_blocks, std::span<const int32_t> new_id);
  // The cache now holds another dtype: only the budget in messages changes.
  void set_bytes_per_token(uint64_t bytes) { config_.bytes_per_token = bytes; }

 private:
  struct Sequence {
    BlockTable table;
    std::vector<int32_t> tokens;       // ids of every token reserved, while known
    bool tokens_known = true;          // false once a reservation came without ids
    std::vector<uint64_t> block_keys;  // chain hashes of the committed full blocks
  };

  Sequence& sequence(SeqId seq);
  const Sequence& sequence(SeqId seq) const;
  std::optional<SlotReservation> reserve_in(Sequence& s, int64_t n_tokens);
  // Walks the cached blocks matching the head of `tokens`; calls take(block) for each.
  template <typename Take>
  int64_t walk_prefix(std::span<const int32_t> tokens, Take take) const;
  [[noreturn]] void throw_cache_full(SeqId seq, int64_t blocks_needed) const;

  KvCacheConfig config_;
  BlockAllocator allocator_;
  PrefixIndex index_;
  std::map<SeqId, Sequence> sequences_;
  SeqId next_id_ = 0;
  int64_t prefix_query_tokens_ = 0;
  int64_t prefix_hit_tokens_ = 0;
  int64_t blocks_released_by_window_ = 0;
};

}  // namespace tessera
