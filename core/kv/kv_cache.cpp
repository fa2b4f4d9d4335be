#include "core/kv/kv_cache.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "core/util/error.h"
#include "core/util/format_bytes.h"

namespace tessera {

namespace {

// Slots are int32 rows of [n_blocks * block_size] cache tensors.
constexpr int64_t kMaxSlots = int64_t{std::numeric_limits<int32_t>::max()} + 1;

// Checked before the allocator is built, so that its own range error never fires first.
const KvCacheConfig& checked(const KvCacheConfig& config) {
  if (config.block_size <= 0) {
    throw Error("KV cache: block_size must be > 0, got " + std::to_string(config.block_size));
  }
  if (config.n_blocks <= 0) {
    throw Error("KV cache: n_blocks must be > 0, got " + std::to_string(config.n_blocks) +
                " (is the KV budget smaller than one block?)");
  }
  if (config.n_blocks > kMaxSlots / config.block_size) {
    throw Error("KV cache: " + std::to_string(config.n_blocks) + " blocks of " +
                std::to_string(config.block_size) + " tokens exceed the " +
                std::to_string(kMaxSlots) + " rows that int32 slots can address");
  }
  return config;
}

}  // namespace

int64_t kv_blocks_for_budget(uint64_t budget_bytes, int32_t block_size,
                             uint64_t bytes_per_token) {
  if (block_size <= 0) {
    throw Error("kv_blocks_for_budget: block_size must be > 0, got " +
                std::to_string(block_size));
  }
  if (bytes_per_token == 0) throw Error("kv_blocks_for_budget: bytes_per_token must be > 0");
  uint64_t max_blocks = static_cast<uint64_t>(kMaxSlots / block_size);
  // Divide in two steps: block_size * bytes_per_token may overflow.
  uint64_t tokens = budget_bytes / bytes_per_token;
  return static_cast<int64_t>(std::min(tokens / static_cast<uint64_t>(block_size), max_blocks));
}

KvCacheBook::KvCacheBook(KvCacheConfig config)
    : config_(checked(config)), allocator_(config.n_blocks), index_(config.n_blocks) {
  if (config_.window < 0) {
    throw Error("KV cache: window must be >= 0 (0 = none), got " + std::to_string(config_.window));
  }
  allocator_.set_eviction_handler([this](int32_t block) { index_.erase(block); });
}

SeqId KvCacheBook::add_sequence() {
  SeqId id = next_id_++;
  sequences_.emplace(id, Sequence{BlockTable(config_.block_size), {}, true, {}});
  return id;
}

template <typename Take>
int64_t KvCacheBook::walk_prefix(std::span<const int32_t> tokens, Take take) const {
  if (!config_.prefix_caching || tokens.empty()) return 0;
  const auto bs = static_cast<size_t>(config_.block_size);
  // Whole blocks only, and never the last token: its logits must be computed.
  const size_t n_blocks = (tokens.size() - 1) / bs;
  uint64_t parent = kPrefixRoot;
  size_t b = 0;
  for (; b < n_blocks; ++b) {
    const auto block_tokens = tokens.subspan(b * bs, bs);
    const uint64_t key = chain_hash(parent, block_tokens);
    const std::optional<int32_t> block = index_.find(key, parent, block_tokens);
    if (!block) break;
    take(*block, key);
    parent = key;
  }
  return static_cast<int64_t>(b * bs);
}

PrefixProbe KvCacheBook::probe_prefix(std::span<const int32_t> tokens) const {
  PrefixProbe probe;
  probe.cached_tokens = walk_prefix(tokens, [&](int32_t block, uint64_t) {
    if (allocator_.ref_count(block) == 0) ++probe.blocks_to_revive;
  });
  return probe;
}

PrefixHit KvCacheBook::add_sequence_with_prefix(std::span<const int32_t> tokens) {
  PrefixHit hit;
  hit.seq = add_sequence();
  Sequence& s = sequences_.at(hit.seq);
  hit.cached_tokens = walk_prefix(tokens, [&](int32_t block, uint64_t key) {
    if (allocator_.ref_count(block) == 0) {
      allocator_.revive(block);
    } else {
      allocator_.retain(block);
    }
    s.table.append_full_block(block);
    s.block_keys.push_back(key);
  });
  s.tokens.assign(tokens.begin(), tokens.begin() + hit.cached_tokens);
  if (config_.prefix_caching) {
    prefix_query_tokens_ += static_cast<int64_t>(tokens.size());
    prefix_hit_tokens_ += hit.cached_tokens;
  }
  return hit;
}

SeqId KvCacheBook::fork_sequence(SeqId parent) {
  const Sequence& p = sequence(parent);
  Sequence child{p.table.fork(allocator_), p.tokens, p.tokens_known, p.block_keys};
  SeqId id = next_id_++;
  sequences_.emplace(id, std::move(child));
  return id;
}

void KvCacheBook::free_sequence(SeqId seq) {
  sequence(seq).table.release_newest_first(allocator_);
  sequences_.erase(seq);
}

bool KvCacheBook::has_sequence(SeqId seq) const { return sequences_.count(seq) != 0; }

SlotReservation KvCacheBook::reserve(SeqId seq, int64_t n_tokens) {
  std::optional<SlotReservation> reservation = try_reserve(seq, n_tokens);
  if (!reservation) throw_cache_full(seq, blocks_needed(seq, n_tokens));
  return std::move(*reservation);
}

std::optional<SlotReservation> KvCacheBook::try_reserve(SeqId seq, int64_t n_tokens) {
  Sequence& s = sequence(seq);
  std::optional<SlotReservation> r = reserve_in(s, n_tokens);
  if (r && n_tokens > 0) {
    s.tokens_known = false;
    s.tokens.clear();
  }
  return r;
}

SlotReservation KvCacheBook::reserve_tokens(SeqId seq, std::span<const int32_t> tokens) {
  std::optional<SlotReservation> reservation = try_reserve_tokens(seq, tokens);
  if (!reservation) throw_cache_full(seq, blocks_needed(seq, static_cast<int64_t>(tokens.size())));
  return std::move(*reservation);
}

std::optional<SlotReservation> KvCacheBook::try_reserve_tokens(SeqId seq, std::span<const int32_t> tokens) {
  Sequence& s = sequence(seq);
  std::optional<SlotReservation> r = reserve_in(s, static_cast<int64_t>(tokens.size()));
  if (r && s.tokens_known) s.tokens.insert(s.tokens.end(), tokens.begin(), tokens.end());
  return r;
}

std::optional<SlotReservation> KvCacheBook::reserve_in(Sequence& s, int64_t n_tokens) {
  if (config_.window > 0) {
    // The first new token, at position n, attends to positions n - window + 1 .. n.
    const int64_t first_needed = s.table.n_tokens() - config_.window + 1;
    blocks_released_by_window_ += s.table.release_before(first_needed, allocator_);
  }
  return s.table.append_tokens(n_tokens, allocator_);
}

void KvCacheBook::commit(SeqId seq) {
  Sequence& s = sequence(seq);
  if (!config_.prefix_caching || !s.tokens_known) return;
  const auto bs = static_cast<size_t>(config_.block_size);
  const size_t n_full = static_cast<size_t>(s.table.n_tokens()) / bs;
  const std::span<const int32_t> tokens(s.tokens);
  for (size_t b = s.block_keys.size(); b < n_full; ++b) {
    const uint64_t parent = b == 0 ? kPrefixRoot : s.block_keys[b - 1];
    const auto block_tokens = tokens.subspan(b * bs, bs);
    const uint64_t key = chain_hash(parent, block_tokens);
    s.block_keys.push_back(key);
    const int32_t block = s.table.blocks()[b];
    // A second block with the same prefix (two equal prompts computed in one step)
    // stays private and is freed plainly.
    if (block != BlockTable::kReleasedBlock && index_.insert(block, key, parent, block_tokens)) {
      allocator_.mark_cached(block);
    }
  }
}

int64_t KvCacheBook::blocks_needed(SeqId seq, int64_t n_tokens) const {
  return table(seq).blocks_needed(n_tokens, allocator_);
}

int64_t KvCacheBook::n_tokens(SeqId seq) const { return table(seq).n_tokens(); }

const BlockTable& KvCacheBook::table(SeqId seq) const { return sequence(seq).table; }

const KvCacheBook::Sequence& KvCacheBook::sequence(SeqId seq) const {
  auto it = sequences_.find(seq);
  if (it == sequences_.end()) throw Error("KV cache: unknown sequence " + std::to_string(seq));
  return it->second;
}

KvCacheBook::Sequence& KvCacheBook::sequence(SeqId seq) {
  return const_cast<Sequence&>(std::as_const(*this).sequence(seq));
}

int32_t KvCacheBook::max_blocks_of(std::span<const SeqId> seqs) const {
  size_t widest = 0;
  for (SeqId seq : seqs) widest = std::max(widest, table(seq).blocks().size());
  return static_cast<int32_t>(widest);
}

void KvCacheBook::fill_block_tables(std::span<const SeqId> seqs, int32_t* out,
                                    int32_t max_blocks_per_seq) const {
  for (size_t row = 0; row < seqs.size(); ++row) {
    const std::vector<int32_t>& blocks = table(seqs[row]).blocks();
    if (static_cast<int64_t>(blocks.size()) > max_blocks_per_seq) {
      throw Error("KV cache: sequence " + std::to_string(seqs[row]) + " has " +
                  std::to_string(blocks.size()) + " blocks, more than the block table's " +
                  std::to_string(max_blocks_per_seq) + " columns");
    }
    int32_t* dst = out + row * static_cast<size_t>(max_blocks_per_seq);
    for (size_t b = 0; b < blocks.size(); ++b) {
      dst[b] = blocks[b] == BlockTable::kReleasedBlock ? 0 : blocks[b];
    }
    std::fill(dst + blocks.size(), dst + max_blocks_per_seq, 0);
  }
}

KvCacheStats KvCacheBook::stats() const {
  KvCacheStats s;
  s.blocks_total = allocator_.n_blocks();
  s.blocks_used = allocator_.n_used();
  s.blocks_cached = allocator_.n_cached_free();
  s.n_sequences = static_cast<int64_t>(sequences_.size());
  s.slots_reserved = s.blocks_used * config_.block_size;
  // Rows filled per physical block. Sharers of a block agree on its fill: nobody
  // writes a shared block (the writer copies it first).
  std::vector<int32_t> filled(static_cast<size_t>(s.blocks_total), 0);
  for (const auto& [seq, sequence] : sequences_) {
    s.tokens_logical += sequence.table.n_tokens();
    int64_t left = sequence.table.n_tokens();
    for (int32_t block : sequence.table.blocks()) {
      int32_t rows = static_cast<int32_t>(std::min<int64_t>(left, config_.block_size));
      if (block != BlockTable::kReleasedBlock) filled[static_cast<size_t>(block)] = rows;
      left -= rows;
    }
  }
  for (int64_t block = 0; block < s.blocks_total; ++block) {
    const int32_t refs = allocator_.ref_count(static_cast<int32_t>(block));
    if (refs > 0) s.tokens_stored += filled[static_cast<size_t>(block)];
    if (refs > 1) ++s.blocks_shared;
  }
  if (s.slots_reserved > 0) {
    s.waste_fraction = static_cast<double>(s.slots_reserved - s.tokens_stored) /
                       static_cast<double>(s.slots_reserved);
  }
  s.prefix_query_tokens = prefix_query_tokens_;
  s.prefix_hit_tokens = prefix_hit_tokens_;
  if (prefix_query_tokens_ > 0) {
    s.prefix_hit_rate = static_cast<double>(prefix_hit_tokens_) / static_cast<double>(prefix_query_tokens_);
  }
  s.blocks_released_by_window = blocks_released_by_window_;
  return s;
}

void KvCacheBook::reset_counters() {
  prefix_query_tokens_ = 0;
  prefix_hit_tokens_ = 0;
  blocks_released_by_window_ = 0;
}

std::vector<SeqId> KvCacheBook::sequences() const {
  std::vector<SeqId> ids;
  ids.reserve(sequences_.size());
  for (const auto& entry : sequences_) ids.push_back(entry.first);
  return ids;
}

std::vector<int32_t> KvCacheBook::occupied_blocks() const {
  std::vector<int32_t> ids;
  for (int32_t id = 0; id < allocator_.n_blocks(); ++id) {
    if (allocator_.ref_count(id) > 0 || allocator_.is_cached(id)) ids.push_back(id);
  }
  return ids;
}

std::vector<int32_t> KvCacheBook::plan_resize(int64_t n_blocks) const {
  KvCacheConfig resized = config_;
  resized.n_blocks = n_blocks;
  checked(resized);
  if (allocator_.n_used() > n_blocks) {
    throw Error("KV cache: " + std::to_string(allocator_.n_used()) + " blocks are in use, more than the " +
                std::to_string(n_blocks) + " of the resized cache");
  }
  std::vector<int32_t> new_id(static_cast<size_t>(allocator_.n_blocks()), -1);
  std::vector<uint8_t> keep(new_id.size(), 0);
  for (int32_t id = 0; id < allocator_.n_blocks(); ++id) keep[static_cast<size_t>(id)] = allocator_.ref_count(id) > 0;
  int64_t room = n_blocks - allocator_.n_used();
  const std::vector<int32_t> cached = allocator_.cached_free_blocks();
  for (auto it = cached.rbegin(); it != cached.rend() && room > 0; ++it, --room) keep[static_cast<size_t>(*it)] = 1;
  int32_t next = 0;
  for (size_t id = 0; id < keep.size(); ++id) {
    if (keep[id]) new_id[id] = next++;
  }
  return new_id;
}

void KvCacheBook::resize(int64_t n_blocks, std::span<const int32_t> new_id) {
  BlockAllocator allocator = allocator_.renumbered(new_id, n_blocks);  // checks the plan first
  for (auto& [id, s] : sequences_) s.table.renumber(new_id);
  index_.renumber(new_id, n_blocks);
  allocator_ = std::move(allocator);
  allocator_.set_eviction_handler([this](int32_t block) { index_.erase(block); });
  config_.n_blocks = n_blocks;
}

void KvCacheBook::throw_cache_full(SeqId seq, int64_t blocks_needed) const {
  std::string message = "KV cache full: sequence " + std::to_string(seq) + " needs " +
                        std::to_string(blocks_needed) + " more block" +
                        (blocks_needed == 1 ? "" : "s") + " of " +
                        std::to_string(config_.block_size) + " tokens but " +
                        std::to_string(allocator_.n_free()) + " of " +
                        std::to_string(allocator_.n_blocks()) + " are free";
  if (config_.bytes_per_token > 0) {
    message += " (budget " + format_bytes(config_.budget_bytes()) + ")";
  }
  throw Error(message);
}

}  // namespace tessera
