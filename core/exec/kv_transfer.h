// Moving the paged KV cache from one executor to another (another device, another
// backend): the rows of the blocks in use are copied block by block, to the same
// ids (the block tables and prefix index stay valid as they are) or renumbered (a
// cache sized differently there, see KvCacheBook::resize).
#pragma once

#include <cstdint>
#include <span>

#include "core/exec/graph_executor.h"

namespace tessera {

struct KvTransfer {
  int64_t blocks = 0;  // block ids copied (each over every cache tensor)
  uint64_t bytes = 0;  // bytes read from the source
};

// Block `src` of the source cache goes to block `dst` of the target.
struct KvBlockMove {
  int32_t src = 0;
  int32_t dst = 0;
};

// Copies every cache tensor's rows of each moved block from `from` to `to`,
// converting them (through f32) when the target's cache holds another dtype. Runs
// consecutive in both caches go as one read and one write per cache tensor. Throws
// tessera::Error when the two caches differ in tensors, block size or row width, a
// block id is outside its cache, or a target block is written twice; `from` is never
// changed.
KvTransfer transfer_kv_blocks(const GraphExecutor& from, GraphExecutor& to, std::span<const KvBlockMove> moves);
// The same, each of `blocks` to the same id (the caches must have as many blocks).
KvTransfer transfer_kv_blocks(const GraphExecutor& from, GraphExecutor& to, std::span<const int32_t> blocks);

}  // namespace tessera
