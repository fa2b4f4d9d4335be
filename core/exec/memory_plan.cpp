#include "core/exec/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tessera {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool lifetimes_overlap(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first_node <= b.last_node && b.first_node <= a.last_node;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, uint64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);

  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });

  struct Placed {
    uint64_t begin, end;
    size_t index;
  };
  std::vector<Placed> placed;
  for (size_t i : order) {
    const uint64_t size = align_up(std::max<uint64_t>(buffers[i].bytes, 1), alignment);
    // Ranges already taken by buffers alive at the same time, sorted by start.
    std::vector<Placed> busy;
    for (const Placed& p : placed) {
      if (lifetimes_overlap(buffers[p.index], buffers[i])) busy.push_back(p);
    }
    std::sort(busy.begin(), busy.end(), [](const Placed& a, const Placed& b) { return a.begin < b.begin; });

    // Best fit: the smallest gap that holds the buffer, else the end.
    uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
    for (const Placed& p : busy) {
      if (p.begin > cursor && p.begin - cursor >= size && p.begin - cursor < best_gap) {
        best = cursor;
        best_gap = p.begin - cursor;
      }
      cursor = std::max(cursor, p.end);
    }
    if (best == UINT64_MAX) best = cursor;
    plan.offsets[i] = best;
    placed.push_back({best, best + size, i});
    plan.arena_bytes = std::max(plan.arena_bytes, best + size);
  }
  return plan;
}

}  // namespace tessera
