// The CUDA backend as a Tessera plugin: the runtime's GPUs, device buffers from the
// caching allocator, steps ordered on one stream, and the kernels of kernel_table. The
// table and its guards are the plugin kit's (kit/device_backend.h).
#include <string>

#include <tessera/kit/device_backend.h>
#include <tessera/plugin_abi.h>

#include "backends/cuda/buffer.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/kernel_table.h"
#include "backends/cuda/runtime.h"

namespace tessera::cuda {
namespace {

struct CudaBackend {
  using Device = CudaDevice;
  using Slots = kit::PluginSlots<CudaDevice, plugin_error, CudaError>;
  static constexpr const char* kName = "cuda";
  static constexpr const char* kNoRuntime = "no CUDA device: the CUDA runtime could not start";

  static int32_t device_count() { return Runtime::get().device_count(); }
  static const std::string& unavailable_reason() { return Runtime::get().unavailable_reason(); }
  static void describe(int32_t index, tsr_device_info* out) { Runtime::get().describe_device(index, out); }
  static CudaDevice* open(int32_t index, const tsr_device_options*) { return new CudaDevice(index); }
  static tsr_buffer alloc(CudaDevice& device, uint64_t size) { return device.alloc(size, "buffer_alloc"); }
  static void free(CudaDevice& device, tsr_buffer buffer) { device.free(buffer); }
  static uint64_t capacity(tsr_buffer buffer) { return buffer->size; }
  static void write(CudaDevice& device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
    device.write(dst, offset, src, size);
  }
  static void read(CudaDevice& device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
    device.read(src, offset, dst, size);
  }
  static void begin_step(CudaDevice& device) { device.begin_step(); }
  static void end_step(CudaDevice& device) { device.end_step(); }
};

constexpr const char* kPluginVersion = "0.1.0";

}  // namespace
}  // namespace tessera::cuda

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  using tessera::cuda::kernel_descs;
  static const tsr_plugin plugin = tessera::kit::device_backend_table<tessera::cuda::CudaBackend>(
      tessera::cuda::kPluginVersion, kernel_descs().data(), static_cast<int32_t>(kernel_descs().size()));
  return &plugin;
}
