// DispatchList comparison and the least-recently-used choice of StepCache, on the host
// (no device: the pipelines are made-up handles).
#include <gtest/gtest.h>

#include <cstdint>

#include "backends/vulkan/step_cache.h"

namespace tessera::vulkan {
namespace {

VkPipeline fake_pipeline(uintptr_t n) { return reinterpret_cast<VkPipeline>(n); }

// One dispatch of pipeline `pipeline` whose push constants are {value, 7}.
DispatchList list_of(uintptr_t pipeline, uint32_t value, uint32_t groups = 4) {
  const uint32_t push[2] = {value, 7};
  DispatchList list;
  list.add(fake_pipeline(pipeline), push, sizeof push, groups, 1);
  return list;
}

TEST(DispatchList, EqualDispatchesCompareEqual) {
  EXPECT_EQ(list_of(1, 5), list_of(1, 5));
  EXPECT_EQ(list_of(1, 5).hash(), list_of(1, 5).hash());
}

TEST(DispatchList, PipelinePushConstantsAndGridEachMakeADifference) {
  EXPECT_FALSE(list_of(1, 5) == list_of(2, 5));
  EXPECT_FALSE(list_of(1, 5) == list_of(1, 6));
  EXPECT_FALSE(list_of(1, 5) == list_of(1, 5, 3));
}

TEST(DispatchList, PushConstantLengthMakesADifference) {
  const uint32_t push[2] = {5, 0};
  DispatchList shorter, longer;
  shorter.add(fake_pipeline(1), push, 4, 4, 1);
  longer.add(fake_pipeline(1), push, 8, 4, 1);
  EXPECT_FALSE(shorter == longer);
}

TEST(DispatchList, ClearedListEqualsANewOne) {
  DispatchList list = list_of(1, 5);
  list.clear();
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list, DispatchList{});
}

TEST(StepCache, SecondLookupOfTheSameListHits) {
  StepCache cache(2);
  const StepCache::Lookup first = cache.find_or_assign(list_of(1, 5));
  const StepCache::Lookup second = cache.find_or_assign(list_of(1, 5));
  EXPECT_FALSE(first.hit);
  EXPECT_TRUE(second.hit);
  EXPECT_EQ(second.slot, first.slot);
}

TEST(StepCache, FillsEmptySlotsBeforeEvicting) {
  StepCache cache(3);
  EXPECT_EQ(cache.find_or_assign(list_of(1, 1)).slot, 0u);
  EXPECT_EQ(cache.find_or_assign(list_of(1, 2)).slot, 1u);
  EXPECT_EQ(cache.find_or_assign(list_of(1, 3)).slot, 2u);
  EXPECT_EQ(cache.valid_slots(), 3u);
}

TEST(StepCache, EvictsTheLeastRecentlyUsedList) {
  StepCache cache(2);
  const uint32_t slot_a = cache.find_or_assign(list_of(1, 1)).slot;
  cache.find_or_assign(list_of(1, 2));
  EXPECT_TRUE(cache.find_or_assign(list_of(1, 1)).hit);  // list 2 is now the oldest
  const StepCache::Lookup third = cache.find_or_assign(list_of(1, 3));
  EXPECT_FALSE(third.hit);
  EXPECT_NE(third.slot, slot_a);
  EXPECT_TRUE(cache.find_or_assign(list_of(1, 1)).hit);
  EXPECT_FALSE(cache.find_or_assign(list_of(1, 2)).hit);
}

TEST(StepCache, ForgottenSlotMissesAndIsReusedFirst) {
  StepCache cache(2);
  cache.find_or_assign(list_of(1, 1));
  const uint32_t slot_b = cache.find_or_assign(list_of(1, 2)).slot;
  cache.forget(slot_b);
  EXPECT_EQ(cache.valid_slots(), 1u);
  const StepCache::Lookup again = cache.find_or_assign(list_of(1, 2));
  EXPECT_FALSE(again.hit);
  EXPECT_EQ(again.slot, slot_b);
}

TEST(StepCache, ClearForgetsEverySlot) {
  StepCache cache(2);
  cache.find_or_assign(list_of(1, 1));
  cache.find_or_assign(list_of(1, 2));
  cache.clear();
  EXPECT_EQ(cache.valid_slots(), 0u);
  EXPECT_FALSE(cache.find_or_assign(list_of(1, 1)).hit);
}

}  // namespace
}  // namespace tessera::vulkan
