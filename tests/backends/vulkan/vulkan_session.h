// The Vulkan tests' view of the GPU test session (backends/gpu_session.h): vulkan:0,
// the Khronos validation layer's message count, and the base classes that skip
// without a device and fail a test during which the layer reported anything.
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "backends/gpu_session.h"

namespace tessera::vulkan::test {

using cpu::test::HostTensor;
using gpu_test::error_of;
using gpu_test::GpuTensor;
using gpu_test::odd_offset;
using gpu_test::run_reference;
using gpu_test::session;
using gpu_test::Session;

// Skips the test when there is no Vulkan device (no loader, no driver).
#define TESSERA_SKIP_WITHOUT_VULKAN()                                                        \
  do {                                                                                       \
    if (!::tessera::gpu_test::session().device) {                                            \
      GTEST_SKIP() << "no Vulkan device: " << ::tessera::gpu_test::session().skip_reason;     \
    }                                                                                        \
  } while (0)

// The "N" of "validation on, N messages" in the live device description; -1 when the
// validation switch (TESSERA_VULKAN_VALIDATION=1) is off.
int64_t validation_messages();

// Runs the Vulkan kernel registered for (op, key dtype); throws tessera::Error with
// the plugin's message when it fails.
inline void run_vulkan(tsr_op op, tsr_dtype key, const void* params, const std::vector<const GpuTensor*>& inputs,
                       const GpuTensor& out) {
  gpu_test::run_backend(op, key, params, inputs, out);
}

// Uploads `inputs` and `out` (at the given byte offsets), runs the Vulkan kernel, checks
// the guards and returns the output read back, dequantised.
inline std::vector<float> run_on_vulkan(tsr_op op, tsr_dtype key, const void* params,
                                        const std::vector<const HostTensor*>& inputs, const HostTensor& out,
                                        const std::vector<uint64_t>& offsets) {
  return gpu_test::run_on_backend(op, key, params, inputs, out, offsets);
}

// Base of the Vulkan tests: skips without a device, and fails a test during which the
// validation layer reported anything (when TESSERA_VULKAN_VALIDATION=1).
template <class Base>
class WithVulkan : public Base {
 protected:
  void SetUp() override {
    TESSERA_SKIP_WITHOUT_VULKAN();
    messages_before_ = validation_messages();
  }
  void TearDown() override {
    if (session().device) {
      EXPECT_EQ(validation_messages(), messages_before_) << "validation messages (see stderr)";
    }
  }

 private:
  int64_t messages_before_ = -1;
};

using VulkanTest = WithVulkan<::testing::Test>;
template <class Param>
using VulkanParamTest = WithVulkan<::testing::TestWithParam<Param>>;

}  // namespace tessera::vulkan::test
