#include "core/engine/batch_builder.h"

#include "core/util/error.h"

namespace tessera {

void build_step_batch(const StepPlan& plan, const KvCacheBook& book, StepBatch* batch,
                      std::vector<int>* logits_chunk) {
  if (plan.chunks.empty()) throw Error("build_step_batch: the plan has no chunk");
  batch->token_ids.clear();
  batch->positions.clear();
  batch->kv_slots.clear();
  batch->token_seq.clear();
  batch->output_rows.clear();
  logits_chunk->clear();
  std::vector<SeqId> seqs;
  seqs.reserve(plan.chunks.size());
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    const ScheduledChunk& chunk = plan.chunks[c];
    const SequenceWork& w = *chunk.work;
    seqs.push_back(w.seq);
    for (int64_t i = 0; i < chunk.count; ++i) {
      const auto position = chunk.first + i;
      batch->token_ids.push_back(w.tokens[static_cast<size_t>(position)]);
      batch->positions.push_back(static_cast<int32_t>(position));
      batch->kv_slots.push_back(chunk.slots.slots[static_cast<size_t>(i)]);
      batch->token_seq.push_back(static_cast<int32_t>(c));
    }
    if (chunk.wants_logits) {
      batch->output_rows.push_back(batch->n_tokens() - 1);
      logits_chunk->push_back(static_cast<int>(c));
    }
  }
  if (batch->output_rows.empty()) {
    batch->output_rows.push_back(batch->n_tokens() - 1);
    logits_chunk->push_back(-1);
  }
  batch->n_seqs = static_cast<int32_t>(seqs.size());
  batch->max_blocks_per_seq = book.max_blocks_of(seqs);
  batch->block_tables.resize(seqs.size() * static_cast<size_t>(batch->max_blocks_per_seq));
  book.fill_block_tables(seqs, batch->block_tables.data(), batch->max_blocks_per_seq);
}

}  // namespace tessera
