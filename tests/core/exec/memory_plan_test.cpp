#include "core/exec/memory_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera {
namespace {

bool overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }

TEST(MemoryPlan, ChainOfActivationsReusesTwoSlots) {
  // x0 -> x1 -> x2 -> x3: each buffer lives from its producer to its only reader.
  std::vector<BufferLifetime> chain = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}, {100, 3, 4}};
  const MemoryPlan plan = plan_memory(chain, 64);
  EXPECT_EQ(plan.arena_bytes, 256u);  // two 128-byte aligned slots
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_EQ(plan.offsets[1], plan.offsets[3]);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
}

TEST(MemoryPlan, BuffersAliveTogetherNeverOverlap) {
  std::mt19937 rng(7);
  std::vector<BufferLifetime> buffers;
  for (int i = 0; i < 300; ++i) {
    const int first = static_cast<int>(rng() % 200);
    buffers.push_back({1 + rng() % 5000, first, first + static_cast<int>(rng() % 30)});
  }
  const MemoryPlan plan = plan_memory(buffers, 64);
  uint64_t total = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0u);
    EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.arena_bytes);
    total += buffers[i].bytes;
    for (size_t j = 0; j < i; ++j) {
      const bool alive_together =
          buffers[i].first_node <= buffers[j].last_node && buffers[j].first_node <= buffers[i].last_node;
      if (!alive_together) continue;
      EXPECT_FALSE(overlap(plan.offsets[i], plan.offsets[i] + buffers[i].bytes, plan.offsets[j],
                           plan.offsets[j] + buffers[j].bytes))
          << "buffers " << i << " and " << j;
    }
  }
  EXPECT_LT(plan.arena_bytes, total);  // reuse happened
}

TEST(MemoryPlan, EmptyPlanHasNoArena) {
  const MemoryPlan plan = plan_memory({}, 64);
  EXPECT_EQ(plan.arena_bytes, 0u);
  EXPECT_TRUE(plan.offsets.empty());
}

}  // namespace
}  // namespace tessera
