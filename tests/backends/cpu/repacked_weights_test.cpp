// The store of repacked weight copies kept with a CPU buffer.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include <tessera/kit/host_memory.h>

#include "backends/cpu/repacked_weights.h"

namespace tessera::cpu::test {
namespace {

using Key = RepackedWeights::Key;

TEST(RepackedWeights, MakesEachCopyOnceAndReturnsItAfterwards) {
  RepackedWeights copies;
  int made = 0;
  const auto fill = [&](char value) {
    return [&made, value](std::byte* copy) {
      ++made;
      std::memset(copy, value, 16);
    };
  };
  const Key a{0, TSR_DTYPE_Q4_K, 8, 256}, b{4096, TSR_DTYPE_Q4_K, 8, 256};
  const std::byte* first = copies.find_or_make(a, 16, 0, fill('a'));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(copies.find_or_make(a, 16, 0, fill('z')), first);
  EXPECT_EQ(static_cast<char>(first[15]), 'a');
  const std::byte* second = copies.find_or_make(b, 16, 0, fill('b'));
  EXPECT_NE(second, first);
  EXPECT_EQ(static_cast<char>(second[0]), 'b');
  EXPECT_EQ(made, 2);
  EXPECT_EQ(copies.count(), 2u);
  EXPECT_EQ(copies.bytes(), 32u);
}

TEST(RepackedWeights, ClearForgetsEveryCopy) {
  RepackedWeights copies;
  int made = 0;
  const auto make = [&](std::byte*) { ++made; };
  const Key a{64, TSR_DTYPE_Q4_K, 16, 512};
  copies.find_or_make(a, 8, 0, make);
  copies.clear();
  EXPECT_EQ(copies.count(), 0u);
  copies.find_or_make(a, 8, 0, make);
  EXPECT_EQ(made, 2);
}

TEST(RepackedWeights, ADifferentShapeAtTheSameOffsetIsAnotherCopy) {
  RepackedWeights copies;
  int made = 0;
  const auto make = [&](std::byte*) { ++made; };
  copies.find_or_make({0, TSR_DTYPE_Q4_K, 8, 256}, 8, 0, make);
  copies.find_or_make({0, TSR_DTYPE_Q4_K, 16, 256}, 8, 0, make);
  copies.find_or_make({0, TSR_DTYPE_Q6_K, 8, 256}, 8, 0, make);
  EXPECT_EQ(made, 3);
}

// With a reserve, a copy is made only if the system's available memory still holds the
// reserve after it; one refused is remembered (not asked for, nor counted) until clear().
TEST(RepackedWeights, IsRefusedWhereItWouldLeaveLessThanTheReserveAvailable) {
  RepackedWeights copies;
  int made = 0;
  const auto make = [&](std::byte*) { ++made; };
  const uint64_t available = kit::memory_available_bytes();
  ASSERT_GT(available, uint64_t{1} << 20);
  const Key a{0, TSR_DTYPE_Q4_K, 8, 256}, b{1024, TSR_DTYPE_Q4_K, 8, 256};
  EXPECT_EQ(copies.find_or_make(a, 64, 2 * available, make), nullptr);
  EXPECT_EQ(copies.find_or_make(a, 64, 0, make), nullptr);  // remembered
  EXPECT_EQ(made, 0);
  EXPECT_EQ(copies.count(), 0u);
  EXPECT_EQ(copies.bytes(), 0u);
  EXPECT_NE(copies.find_or_make(b, 64, available / 4, make), nullptr);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(copies.count(), 1u);
  copies.clear();
  EXPECT_NE(copies.find_or_make(a, 64, 0, make), nullptr);
  EXPECT_EQ(made, 2);
}

// Copies share chunks of huge-page memory: each starts on a cache line, none overlaps
// another, and one larger than a chunk gets its own.
TEST(RepackedWeights, CopiesStartOnCacheLinesAndDoNotOverlap) {
  RepackedWeights copies;
  const size_t sizes[] = {100, size_t{70} << 20, 10, 4096, 1};
  std::vector<const std::byte*> made;
  for (size_t i = 0; i < std::size(sizes); ++i) {
    const Key key{64 * i, TSR_DTYPE_Q4_K, 8, 256};
    const std::byte* copy = copies.find_or_make(key, sizes[i], 0, [&](std::byte* p) {
      std::memset(p, static_cast<int>(i + 1), sizes[i]);
    });
    ASSERT_NE(copy, nullptr) << "copy " << i;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy) % 64, 0u) << "copy " << i;
    made.push_back(copy);
  }
  for (size_t i = 0; i < made.size(); ++i) {
    EXPECT_EQ(static_cast<int>(made[i][0]), static_cast<int>(i + 1)) << "copy " << i;
    EXPECT_EQ(static_cast<int>(made[i][sizes[i] - 1]), static_cast<int>(i + 1)) << "copy " << i;
  }
  EXPECT_EQ(copies.count(), std::size(sizes));
  EXPECT_EQ(copies.bytes(), 100 + (size_t{70} << 20) + 10 + 4096 + 1);
}

}  // namespace
}  // namespace tessera::cpu::test
