#include "core/kv/kv_cache.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "core/util/error.h"

namespace tessera {

namespace {

// Slots are int32 rows of [n_blocks * block_size] cache tensors.
constexpr int64_t kMaxSlots = int64_t{std::numeric_limits<int32_t>::max()} + 1;

// "512 B", "1.0 MiB", "7.5 GiB".
std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

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
    : config_(checked(config)), allocator_(config.n_blocks) {}

SeqId KvCacheBook::add_sequence() {
  SeqId id = next_id_++;
  tables_.emplace(id, BlockTable(config_.block_size));
  return id;
}

SeqId KvCacheBook::fork_sequence(SeqId parent) {
  BlockTable child = table(parent).fork(allocator_);
  SeqId id = next_id_++;
  tables_.emplace(id, std::move(child));
  return id;
}

void KvCacheBook::free_sequence(SeqId seq) {
  table_of(seq).release(allocator_);
  tables_.erase(seq);
}

bool KvCacheBook::has_sequence(SeqId seq) const { return tables_.count(seq) != 0; }

SlotReservation KvCacheBook::reserve(SeqId seq, int64_t n_tokens) {
  std::optional<SlotReservation> reservation = try_reserve(seq, n_tokens);
  if (!reservation) throw_cache_full(seq, blocks_needed(seq, n_tokens));
  return std::move(*reservation);
}

std::optional<SlotReservation> KvCacheBook::try_reserve(SeqId seq, int64_t n_tokens) {
  return table_of(seq).append_tokens(n_tokens, allocator_);
}

int64_t KvCacheBook::blocks_needed(SeqId seq, int64_t n_tokens) const {
  return table(seq).blocks_needed(n_tokens, allocator_);
}

int64_t KvCacheBook::n_tokens(SeqId seq) const { return table(seq).n_tokens(); }

const BlockTable& KvCacheBook::table(SeqId seq) const {
  auto it = tables_.find(seq);
  if (it == tables_.end()) throw Error("KV cache: unknown sequence " + std::to_string(seq));
  return it->second;
}

BlockTable& KvCacheBook::table_of(SeqId seq) {
  return const_cast<BlockTable&>(std::as_const(*this).table(seq));
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
    std::copy(blocks.begin(), blocks.end(), dst);
    std::fill(dst + blocks.size(), dst + max_blocks_per_seq, 0);
  }
}

KvCacheStats KvCacheBook::stats() const {
  KvCacheStats s;
  s.blocks_total = allocator_.n_blocks();
  s.blocks_used = allocator_.n_used();
  s.n_sequences = static_cast<int64_t>(tables_.size());
  s.slots_reserved = s.blocks_used * config_.block_size;
  // Rows filled per physical block. Sharers of a block agree on its fill: nobody
  // writes a shared block (the writer copies it first).
  std::vector<int32_t> filled(static_cast<size_t>(s.blocks_total), 0);
  for (const auto& [seq, table] : tables_) {
    s.tokens_logical += table.n_tokens();
    int64_t left = table.n_tokens();
    for (int32_t block : table.blocks()) {
      int32_t rows = static_cast<int32_t>(std::min<int64_t>(left, config_.block_size));
      filled[static_cast<size_t>(block)] = rows;
      left -= rows;
    }
  }
  for (int64_t block = 0; block < s.blocks_total; ++block) {
    s.tokens_stored += filled[static_cast<size_t>(block)];
    if (allocator_.ref_count(static_cast<int32_t>(block)) > 1) ++s.blocks_shared;
  }
  if (s.slots_reserved > 0) {
    s.waste_fraction = static_cast<double>(s.slots_reserved - s.tokens_stored) /
                       static_cast<double>(s.slots_reserved);
  }
  return s;
}

std::vector<SeqId> KvCacheBook::sequences() const {
  std::vector<SeqId> ids;
  ids.reserve(tables_.size());
  for (const auto& entry : tables_) ids.push_back(entry.first);
  return ids;
}

void KvCacheBook::throw_cache_full(SeqId seq, int64_t blocks_needed) const {
  std::string message = "KV cache full: sequence " + std::to_string(seq) + " needs " +
                        std::to_string(blocks_needed) + " more block" +
                        (blocks_needed == 1 ? "" : "s") + " of " +
                        std::to_string(config_.block_size) + " tokens but " +
                        std::to_string(allocator_.n_free()) + " of " +
                        std::to_string(allocator_.n_blocks()) + " are free";
  if (config_.bytes_per_token > 0) {
    double budget = static_cast<double>(config_.bytes_per_token) *
                    static_cast<double>(config_.n_blocks * config_.block_size);
    message += " (budget " + format_bytes(budget) + ")";
  }
  throw Error(message);
}

}  // namespace tessera
