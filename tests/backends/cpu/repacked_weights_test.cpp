// The store of repacked weight copies kept with a CPU buffer.
#include <gtest/gtest.h>

#include <cstring>

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
  const std::byte* first = copies.find_or_make(a, 16, fill('a'));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(copies.find_or_make(a, 16, fill('z')), first);
  EXPECT_EQ(static_cast<char>(first[15]), 'a');
  const std::byte* second = copies.find_or_make(b, 16, fill('b'));
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
  copies.find_or_make(a, 8, make);
  copies.clear();
  EXPECT_EQ(copies.count(), 0u);
  copies.find_or_make(a, 8, make);
  EXPECT_EQ(made, 2);
}

TEST(RepackedWeights, ADifferentShapeAtTheSameOffsetIsAnotherCopy) {
  RepackedWeights copies;
  int made = 0;
  const auto make = [&](std::byte*) { ++made; };
  copies.find_or_make({0, TSR_DTYPE_Q4_K, 8, 256}, 8, make);
  copies.find_or_make({0, TSR_DTYPE_Q4_K, 16, 256}, 8, make);
  copies.find_or_make({0, TSR_DTYPE_Q6_K, 8, 256}, 8, make);
  EXPECT_EQ(made, 3);
}

}  // namespace
}  // namespace tessera::cpu::test
