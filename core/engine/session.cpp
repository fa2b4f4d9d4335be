#include "core/engine/session.h"

#include <algorithm>

#include "core/util/error.h"

namespace tessera {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Session::Session(const Model& model, const Backend& backend, SessionOptions options)
    : n_ctx_(options.n_ctx > 0 ? options.n_ctx : model.compiled().n_ctx > 0 ? model.compiled().n_ctx : 2048),
      n_vocab_(model.compiled().n_vocab),
      max_step_tokens_(options.max_step_tokens),
      book_(KvCacheConfig{options.kv_block, ceil_div(n_ctx_, options.kv_block), 0}),
      seq_(book_.add_sequence()) {
  if (options.kv_block <= 0) throw Error("KV block size must be positive");
  if (max_step_tokens_ <= 0) throw Error("tokens per step must be positive");
  executor_ = place_graph(model.compiled().graph, model.weights(), backend,
                          KvCacheShape{options.kv_block, book_.config().n_blocks});
}

int64_t Session::n_past() const { return book_.n_tokens(seq_); }

void Session::reset() {
  book_.free_sequence(seq_);
  seq_ = book_.add_sequence();
}

const std::vector<float>& Session::feed(std::span<const int32_t> tokens, int32_t n_logits) {
  if (tokens.empty()) throw Error("feed() needs at least one token");
  if (n_logits < 1 || static_cast<size_t>(n_logits) > tokens.size()) {
    throw Error("feed(): asked for the logits of " + std::to_string(n_logits) + " of " +
                std::to_string(tokens.size()) + " tokens");
  }
  if (n_past() + static_cast<int64_t>(tokens.size()) > n_ctx_) {
    throw Error("context full: " + std::to_string(n_past()) + " tokens so far + " + std::to_string(tokens.size()) +
                " new > context of " + std::to_string(n_ctx_) + " (raise it with --ctx)");
  }
  for (int32_t t : tokens) {
    if (t < 0 || t >= n_vocab_) {
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary of " + std::to_string(n_vocab_));
    }
  }
  // Chunks: all but the last produce no logits unless the caller wants them.
  std::vector<float> gathered;
  const size_t total = tokens.size();
  const size_t want_from = total - static_cast<size_t>(n_logits);
  for (size_t begin = 0; begin < total; begin += static_cast<size_t>(max_step_tokens_)) {
    const size_t end = std::min(total, begin + static_cast<size_t>(max_step_tokens_));
    const size_t wanted = end > want_from ? end - std::max(begin, want_from) : 0;
    run_chunk(tokens.subspan(begin, end - begin), static_cast<int32_t>(wanted));
    gathered.insert(gathered.end(), logits_.begin(), logits_.end());
  }
  logits_ = std::move(gathered);
  return logits_;
}

void Session::run_chunk(std::span<const int32_t> tokens, int32_t n_logits) {
  const SlotReservation r = book_.reserve(seq_, static_cast<int64_t>(tokens.size()));
  if (r.copy) executor_->copy_kv_block(r.copy->src, r.copy->dst);
  const auto T = static_cast<int32_t>(tokens.size());
  batch_.token_ids.assign(tokens.begin(), tokens.end());
  batch_.positions.resize(static_cast<size_t>(T));
  for (int32_t i = 0; i < T; ++i) batch_.positions[static_cast<size_t>(i)] = static_cast<int32_t>(r.first_position + i);
  batch_.kv_slots = r.slots;
  batch_.token_seq.assign(static_cast<size_t>(T), 0);
  const SeqId seqs[] = {seq_};
  batch_.n_seqs = 1;
  batch_.max_blocks_per_seq = book_.max_blocks_of(seqs);
  batch_.block_tables.resize(static_cast<size_t>(batch_.max_blocks_per_seq));
  book_.fill_block_tables(seqs, batch_.block_tables.data(), batch_.max_blocks_per_seq);
  // A chunk without wanted logits still computes one row: the graph needs Outputs >= 1.
  const int32_t rows = std::max(n_logits, 1);
  batch_.output_rows.resize(static_cast<size_t>(rows));
  for (int32_t i = 0; i < rows; ++i) batch_.output_rows[static_cast<size_t>(i)] = T - rows + i;
  executor_->run(batch_, &logits_);
  if (n_logits == 0) logits_.clear();
}

}  // namespace tessera
