// Places the activations of one graph step in a single arena: buffers whose
// lifetimes (first..last node that touches them) overlap never share bytes.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

struct BufferLifetime {
  uint64_t bytes = 0;
  int first_node = 0;  // node that produces it
  int last_node = 0;   // last node that reads it (>= first_node)
};

struct MemoryPlan {
  std::vector<uint64_t> offsets;  // one per BufferLifetime, aligned to `alignment`
  uint64_t arena_bytes = 0;       // total size of the arena
};

// Greedy best-fit by decreasing size; offsets are multiples of `alignment`.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, uint64_t alignment = 64);

}  // namespace tessera
