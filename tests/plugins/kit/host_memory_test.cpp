// The host-memory figure the CLI and the cpu backend size their choices by.
#include <tessera/kit/host_memory.h>

#include <gtest/gtest.h>

namespace tessera::kit {
namespace {

TEST(HostMemory, AvailableMemoryIsReadFromProcMeminfo) {
  // This machine's figure, whatever it is, is more than a megabyte and less than 1 PiB.
  const uint64_t available = memory_available_bytes();
  EXPECT_GT(available, uint64_t{1} << 20);
  EXPECT_LT(available, uint64_t{1} << 50);
}

}  // namespace
}  // namespace tessera::kit
