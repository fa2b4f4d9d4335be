// Turns a step plan into the executor's StepBatch: the ragged tokens of every chunk
// with their positions, cache slots, sequence rows and block tables (no padding to
// the longest sequence), and which rows' logits come back.
#pragma once

#include <cstddef>
#include <vector>

#include "core/engine/scheduler.h"
#include "core/exec/step_batch.h"
#include "core/kv/kv_cache.h"

namespace tessera {

// Fills `batch` for `plan` (chunk i is sequence row i). logits_chunk receives, per
// output row, the index of the chunk it belongs to, or -1 for the placeholder row a
// step without wanted logits still computes (the graph needs Outputs >= 1).
void build_step_batch(const StepPlan& plan, const KvCacheBook& book, StepBatch* batch,
                      std::vector<int>* logits_chunk);

}  // namespace tessera
