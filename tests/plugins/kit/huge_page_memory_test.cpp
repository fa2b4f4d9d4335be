// HugePageMemory: whole huge pages on a 2 MiB boundary, writable, moved not copied.
#include <tessera/kit/huge_page_memory.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace tessera::kit {
namespace {

TEST(HugePageMemory, RoundsUpToWholeHugePagesOnAHugePageBoundary) {
  const HugePageMemory memory((size_t{2} << 20) + 1);
  ASSERT_NE(memory.data(), nullptr);
  EXPECT_EQ(memory.size(), size_t{4} << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.data()) % HugePageMemory::kPageBytes, 0u);
  memory.data()[0] = 7;
  memory.data()[memory.size() - 1] = 9;
  EXPECT_EQ(memory.data()[0] + memory.data()[memory.size() - 1], 16);
}

TEST(HugePageMemory, DefaultIsEmpty) {
  const HugePageMemory memory;
  EXPECT_EQ(memory.data(), nullptr);
  EXPECT_EQ(memory.size(), 0u);
}

TEST(HugePageMemory, MoveTransfersTheMemory) {
  HugePageMemory a(100);
  uint8_t* data = a.data();
  data[99] = 42;
  HugePageMemory b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  HugePageMemory c(10);
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c.size(), HugePageMemory::kPageBytes);
  EXPECT_EQ(c.data()[99], 42);
}

}  // namespace
}  // namespace tessera::kit
