// How the CLI holds a weights file: the flags win; by default read into memory for a
// backend that reads weights in host memory when the file takes at most half the
// available memory.
#include "tools/tessera/weights_residency.h"

#include <gtest/gtest.h>

#include "tools/tessera/options.h"

namespace tessera::cli {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(WeightsResidency, HostMemoryBackendReadsAFileOfAtMostHalfTheAvailableMemory) {
  EXPECT_EQ(choose_weights_residency({false, false, true, 4 * kGiB, 8 * kGiB}), FileResidency::kInMemory);
  EXPECT_EQ(choose_weights_residency({false, false, true, 1, 8 * kGiB}), FileResidency::kInMemory);
  EXPECT_EQ(choose_weights_residency({false, false, true, 4 * kGiB + 1, 8 * kGiB}), FileResidency::kMapped);
}

TEST(WeightsResidency, UnknownAvailableMemoryMaps) {
  EXPECT_EQ(choose_weights_residency({false, false, true, 1, 0}), FileResidency::kMapped);
}

TEST(WeightsResidency, BackendsWithTheirOwnMemoryMap) {
  EXPECT_EQ(choose_weights_residency({false, false, false, 1, 8 * kGiB}), FileResidency::kMapped);
}

TEST(WeightsResidency, FlagsOverrideTheDefault) {
  EXPECT_EQ(choose_weights_residency({true, false, true, 1, 8 * kGiB}), FileResidency::kMapped);
  EXPECT_EQ(choose_weights_residency({false, true, false, 100 * kGiB, 8 * kGiB}), FileResidency::kInMemory);
}

TEST(WeightsResidency, BothFlagsAreAUsageError) {
  try {
    choose_weights_residency({true, true, true, 1, 8 * kGiB});
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.message, "--mmap and --no-mmap contradict each other: pass one");
  }
}

}  // namespace
}  // namespace tessera::cli
