// The Vulkan plugin loaded through the host as the engine loads it, with one device
// opened for the test program; tensors placed in device buffers at chosen offsets
// between guard bytes; and the Vulkan kernel / CPU reference pair for each op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tessera/plugin_abi.h>

#include "backends/cpu/host_tensor.h"
#include "backends/cpu/ops/tensor_args.h"
#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"

namespace tessera::vulkan::test {

using cpu::test::HostTensor;

struct Session {
  PluginHost host;
  std::shared_ptr<const PluginLibrary> plugin;  // null if the plugin did not load
  std::shared_ptr<Device> device;               // null if there is no Vulkan device
  std::unique_ptr<KernelRegistry> registry;
  std::string skip_reason;                      // why device is null
};

// Loads the plugins of the build's plugin directory and opens vulkan:0, once.
Session& session();

// Skips the test when there is no Vulkan device (no loader, no driver).
#define TESSERA_SKIP_WITHOUT_VULKAN()                                                        \
  do {                                                                                       \
    if (!::tessera::vulkan::test::session().device) {                                        \
      GTEST_SKIP() << "no Vulkan device: " << ::tessera::vulkan::test::session().skip_reason; \
    }                                                                                        \
  } while (0)

// The "N" of "validation on, N messages" in the live device description; -1 when the
// validation switch (TESSERA_VULKAN_VALIDATION=1) is off.
int64_t validation_messages();

// A copy of a HostTensor in its own device buffer at byte `offset`, between guard
// bytes that detect writes outside the tensor.
class GpuTensor {
 public:
  GpuTensor(const HostTensor& host, uint64_t offset);

  const tsr_tensor& desc() const { return desc_; }
  // The tensor's bytes read back, as a HostTensor of the same dtype and shape.
  HostTensor read() const;
  // Whether every guard byte before and after the tensor is unchanged.
  bool guards_intact() const;

 private:
  static constexpr uint64_t kGuardBytes = 96;
  std::shared_ptr<DeviceBuffer> buffer_;
  tsr_tensor desc_{};
  uint64_t bytes_ = 0;
};

// Runs the Vulkan kernel registered for (op, key dtype); throws tessera::Error with
// the plugin's message when it fails.
void run_vulkan(tsr_op op, tsr_dtype key, const void* params, const std::vector<const GpuTensor*>& inputs,
                const GpuTensor& out);

// Runs the CPU reference kernel `body`; fails the test when it returns an error.
void run_reference(cpu::KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& inputs,
                   HostTensor& out);

// A byte offset for a tensor of `dtype` that is not a multiple of 256 (nor, for
// 16-bit dtypes and block formats, of 4): 4 * slot + 4, or 4 * slot + 2 for f16, bf16
// and every block format (q8_0, q4_0 ... iq4_xs), whose first byte needs 2-byte alignment.
uint64_t odd_offset(tsr_dtype dtype, uint64_t slot);

// Uploads `inputs` and `out` (at the given byte offsets), runs the Vulkan kernel, checks
// the guards and returns the output read back, dequantised.
std::vector<float> run_on_vulkan(tsr_op op, tsr_dtype key, const void* params,
                                 const std::vector<const HostTensor*>& inputs, const HostTensor& out,
                                 const std::vector<uint64_t>& offsets);

// The message of the tessera::Error `fn` throws ("" if it throws none).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
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
