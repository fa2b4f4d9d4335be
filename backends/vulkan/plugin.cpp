// The Vulkan backend as a Tessera plugin: the runtime's devices, sub-allocated device
// buffers, steps as command buffers, and the kernels of kernel_table. The table and
// its guards are the plugin kit's (kit/device_backend.h).
#include <memory>
#include <string>

#include <tessera/kit/device_backend.h>
#include <tessera/plugin_abi.h>

#include "backends/vulkan/buffer.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/kernel_table.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

struct VulkanBackend {
  using Device = VulkanDevice;
  using Slots = kit::PluginSlots<VulkanDevice, plugin_error, VulkanError>;
  static constexpr const char* kName = "vulkan";
  static constexpr const char* kNoRuntime = "the Vulkan runtime could not start";

  static int32_t device_count() { return Runtime::get().device_count(); }
  static const std::string& unavailable_reason() { return Runtime::get().unavailable_reason(); }
  static void describe(int32_t index, tsr_device_info* out) { Runtime::get().describe_device(index, out); }
  static VulkanDevice* open(int32_t index, const tsr_device_options*) {
    return new VulkanDevice(index);  // n_threads does not apply to a GPU
  }

  static tsr_buffer alloc(VulkanDevice& device, uint64_t size) {
    const Allocation allocation = device.memory().allocate(size);
    try {
      return new tsr_buffer_impl{allocation};
    } catch (...) {
      device.memory().free(allocation);
      throw;
    }
  }

  // Runs the pending commands first and forgets recorded steps; the handle goes either way.
  static void free(VulkanDevice& device, tsr_buffer buffer) {
    const std::unique_ptr<tsr_buffer_impl> handle(buffer);
    device.free(handle->allocation);
  }

  static uint64_t capacity(tsr_buffer buffer) { return buffer->allocation.size; }
  static void write(VulkanDevice& device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
    device.write(dst->allocation, offset, src, size);
  }
  static void read(VulkanDevice& device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
    device.read(src->allocation, offset, dst, size);
  }
  static void begin_step(VulkanDevice& device) { device.begin_step(); }
  static void end_step(VulkanDevice& device) { device.end_step(); }
};

constexpr const char* kPluginVersion = "0.1.0";

}  // namespace
}  // namespace tessera::vulkan

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  using tessera::vulkan::kernel_descs;
  static const tsr_plugin plugin = tessera::kit::device_backend_table<tessera::vulkan::VulkanBackend>(
      tessera::vulkan::kPluginVersion, kernel_descs().data(), static_cast<int32_t>(kernel_descs().size()));
  return &plugin;
}
