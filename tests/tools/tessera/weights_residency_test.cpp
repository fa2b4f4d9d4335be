// How the CLI holds a weights file: the flags win; by default read into memory on the
// CPU backend when the file takes at most half the available memory.
#include "tools/tessera/weights_residency.h"

#include <gtest/gtest.h>

#include "tools/tessera/options.h"

namespace tessera::cli {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(WeightsResidency, CpuBackendReadsAFileOfAtMostHalfTheAvailableMemory) {
  EXPECT_EQ(choose_weights_residency({false, false, "cpu", 4 * kGiB, 8 * kGiB}), FileResidency::kInMemory);
  EXPECT_EQ(choose_weights_residency({false, false, "cpu:0", 1, 8 * kGiB}), FileResidency::kInMemory);
  EXPECT_EQ(choose_weights_residency({false, false, "cpu", 4 * kGiB + 1, 8 * kGiB}), FileResidency::kMapped);
}

TEST(WeightsResidency, UnknownAvailableMemoryMaps) {
  EXPECT_EQ(choose_weights_residency({false, false, "cpu", 1, 0}), FileResidency::kMapped);
}

TEST(WeightsResidency, OtherBackendsMap) {
  EXPECT_EQ(choose_weights_residency({false, false, "vulkan:0", 1, 8 * kGiB}), FileResidency::kMapped);
  EXPECT_EQ(choose_weights_residency({false, false, "cuda", 1, 8 * kGiB}), FileResidency::kMapped);
  EXPECT_EQ(choose_weights_residency({false, false, "cpux", 1, 8 * kGiB}), FileResidency::kMapped);
}

TEST(WeightsResidency, FlagsOverrideTheDefault) {
  EXPECT_EQ(choose_weights_residency({true, false, "cpu", 1, 8 * kGiB}), FileResidency::kMapped);
  EXPECT_EQ(choose_weights_residency({false, true, "vulkan", 100 * kGiB, 8 * kGiB}), FileResidency::kInMemory);
}

TEST(WeightsResidency, BothFlagsAreAUsageError) {
  try {
    choose_weights_residency({true, true, "cpu", 1, 8 * kGiB});
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.message, "--mmap and --no-mmap contradict each other: pass one");
  }
}

TEST(WeightsResidency, AvailableMemoryIsReadFromProcMeminfo) {
  // This machine's figure, whatever it is, is more than a megabyte and less than 1 PiB.
  const uint64_t available = memory_available_bytes();
  EXPECT_GT(available, uint64_t{1} << 20);
  EXPECT_LT(available, uint64_t{1} << 50);
}

}  // namespace
}  // namespace tessera::cli
