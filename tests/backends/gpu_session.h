// What the tests of a GPU backend (Vulkan, CUDA) share: the backend's plugin loaded
// through the host as the engine loads it, with device 0 opened for the test program;
// tensors placed in device buffers at chosen offsets between guard bytes; and the
// backend kernel / CPU reference pair for each op. Each test program names its
// backend by defining program_backend().
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

namespace tessera::gpu_test {

using cpu::test::HostTensor;

struct Session {
  std::string backend;
  PluginHost host;
  std::shared_ptr<const PluginLibrary> plugin;  // null if the plugin did not load
  std::shared_ptr<Device> device;               // null if there is no device
  std::unique_ptr<KernelRegistry> registry;
  std::string skip_reason;                      // why device is null
};

// The backend of this test program ("vulkan", "cuda"): defined once per program.
const char* program_backend();

// Loads the plugins of the build's plugin directory and opens <program_backend()>:0, once.
Session& session();

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

// Runs the backend's kernel registered for (op, key dtype); throws tessera::Error with
// the plugin's message when it fails.
void run_backend(tsr_op op, tsr_dtype key, const void* params, const std::vector<const GpuTensor*>& inputs,
                 const GpuTensor& out);

// Runs the CPU reference kernel `body`; fails the test when it returns an error.
void run_reference(cpu::KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& inputs,
                   HostTensor& out);

// A byte offset for a tensor of `dtype` that is not a multiple of 256 (nor, for
// 16-bit dtypes and block formats, of 4): 4 * slot + 4, or 4 * slot + 2 for f16, bf16
// and every block format (q8_0, q4_0 ... iq4_xs), whose first byte needs 2-byte alignment.
uint64_t odd_offset(tsr_dtype dtype, uint64_t slot);

// Uploads `inputs` and `out` (at the given byte offsets), runs the backend's kernel,
// checks the guards and returns the output read back, dequantised.
std::vector<float> run_on_backend(tsr_op op, tsr_dtype key, const void* params,
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

}  // namespace tessera::gpu_test
