// Moving the paged KV cache from one executor to another (another device, another
// backend): the rows of the blocks in use are copied to the same block ids, so the
// block tables and the prefix index stay valid as they are.
#pragma once

#include <cstdint>
#include <span>

#include "core/exec/graph_executor.h"

namespace tessera {

struct KvTransfer {
  int64_t blocks = 0;  // block ids copied (each over every cache tensor)
  uint64_t bytes = 0;  // bytes read from the source, and written to the target
};

// Copies blocks `blocks` (any order, no repeats) of every cache tensor of `from` into
// `to`. Runs of consecutive ids go as one read and one write per cache tensor. Throws
// tessera::Error when the two caches differ in tensors, block size, block count or
// dtype, or a block id is outside them; `from` is never changed.
KvTransfer transfer_kv_blocks(const GraphExecutor& from, GraphExecutor& to, std::span<const int32_t> blocks);

}  // namespace tessera
