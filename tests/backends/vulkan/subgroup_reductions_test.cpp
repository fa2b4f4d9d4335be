// The subgroup-arithmetic switch as the device description reports it: whether the
// device has subgroup arithmetic (lavapipe does), and the note that
// TESSERA_VULKAN_SUBGROUPS=0 adds. The kernels of both variants are checked by the
// matmul and norm tests, which ctest runs once with the switch off as well.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

bool switch_off() {
  const char* value = std::getenv("TESSERA_VULKAN_SUBGROUPS");
  return value != nullptr && std::string(value) == "0";
}

class SubgroupReductions : public VulkanTest {
 protected:
  tsr_device_info info() { return session().plugin->device_info(0); }
};

TEST_F(SubgroupReductions, DescriptionStatesSubgroupArithmetic) {
  EXPECT_THAT(info().description, ContainsRegex(", subgroup [0-9]+ \\(arithmetic (yes|no)\\), fp16 "));
}

TEST_F(SubgroupReductions, LavapipeHasSubgroupArithmetic) {
  if (std::string(info().name).find("llvmpipe") == std::string::npos) GTEST_SKIP() << "not lavapipe";
  EXPECT_THAT(info().description, HasSubstr(", subgroup 8 (arithmetic yes), "));
}

// ctest runs this once with the switch unset and once with TESSERA_VULKAN_SUBGROUPS=0.
TEST_F(SubgroupReductions, DescriptionNotesTheSwitchOnlyWhenItIsOff) {
  if (switch_off()) {
    EXPECT_THAT(info().description, HasSubstr("; subgroup arithmetic off"));
  } else {
    EXPECT_THAT(info().description, Not(HasSubstr("subgroup arithmetic off")));
  }
}

}  // namespace
}  // namespace tessera::vulkan::test
