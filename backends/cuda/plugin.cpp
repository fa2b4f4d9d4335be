// The CUDA backend as a Tessera plugin: the ABI table (the runtime's GPUs, device
// buffers from the caching allocator, steps ordered on one stream, the kernels of
// kernel_table) and the exported entry point. Every slot runs behind the plugin kit's
// guard (kit/plugin_slots.h) and answers with a status code.
#include <string>

#include <tessera/kit/plugin_slots.h>
#include <tessera/plugin_abi.h>

#include "backends/cuda/buffer.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/kernel_table.h"
#include "backends/cuda/runtime.h"

namespace tessera::cuda {
namespace {

constexpr const char* kPluginVersion = "0.1.0";

using Slots = kit::PluginSlots<CudaDevice, plugin_error, CudaError>;

CudaDevice* as_device(void* device) { return static_cast<CudaDevice*>(device); }

int32_t device_count() {
  try {
    return Runtime::get().device_count();
  } catch (...) {
    return 0;
  }
}

const char* unavailable_reason() {
  try {
    const std::string& reason = Runtime::get().unavailable_reason();
    return reason.empty() ? nullptr : reason.c_str();
  } catch (...) {
    return "no CUDA device: the CUDA runtime could not start";
  }
}

tsr_status device_info(int32_t index, tsr_device_info* out) {
  return Slots::guarded(nullptr, "device_info", [&]() -> tsr_status {
    kit::check_not_null(out, "out");
    kit::check_device_index("cuda", index, device_count());
    Runtime::get().describe_device(index, out);
    return TSR_OK;
  });
}

tsr_status device_open(int32_t index, const tsr_device_options*, void** device) {
  return Slots::guarded(nullptr, "device_open", [&]() -> tsr_status {
    kit::check_not_null(device, "device");
    *device = nullptr;
    kit::check_device_index("cuda", index, device_count());
    *device = new CudaDevice(index);  // n_threads does not apply to a GPU
    return TSR_OK;
  });
}

void device_close(void* device) {
  try {
    delete as_device(device);
  } catch (...) {
    // Teardown reports nothing; the device is gone either way.
  }
}

tsr_status alloc(void* device, uint64_t size, tsr_buffer* out) {
  return Slots::guarded(device, "buffer_alloc", [&]() -> tsr_status {
    kit::check_not_null(out, "out");
    *out = nullptr;
    kit::check_not_null(device, "device");
    *out = as_device(device)->alloc(size, "buffer_alloc");
    return TSR_OK;
  });
}

void free_buffer(void* device, tsr_buffer buffer) {
  if (device != nullptr) as_device(device)->free(buffer);
}

// Checks a buffer_write / buffer_read (throws KernelError).
void check_copy(void* device, tsr_buffer buffer, uint64_t offset, const void* host, uint64_t size) {
  kit::check_not_null(device, "device");
  kit::check_not_null(buffer, "buffer");
  kit::check_copy_range(host, offset, size, buffer->size);
}

tsr_status write(void* device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  return Slots::guarded(device, "buffer_write", [&]() -> tsr_status {
    check_copy(device, dst, offset, src, size);
    as_device(device)->write(dst, offset, src, size);
    return TSR_OK;
  });
}

tsr_status read(void* device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  return Slots::guarded(device, "buffer_read", [&]() -> tsr_status {
    check_copy(device, src, offset, dst, size);
    as_device(device)->read(src, offset, dst, size);
    return TSR_OK;
  });
}

tsr_status step_begin(void* device) {
  return Slots::guarded(device, "step_begin", [&]() -> tsr_status {
    kit::check_not_null(device, "device");
    return TSR_OK;
  });
}

tsr_status step_end(void* device) {
  return Slots::guarded(device, "step_end", [&]() -> tsr_status {
    kit::check_not_null(device, "device");
    as_device(device)->end_step();
    return TSR_OK;
  });
}

tsr_plugin make_plugin() {
  tsr_plugin p = kit::backend_table("cuda", kPluginVersion, kernel_descs().data(),
                                    static_cast<int32_t>(kernel_descs().size()));
  p.device_count = device_count;
  p.unavailable_reason = unavailable_reason;
  p.device_info = device_info;
  p.device_open = device_open;
  p.device_close = device_close;
  p.last_error = Slots::last_error;
  p.buffer_alloc = alloc;
  p.buffer_free = free_buffer;
  p.buffer_host_ptr = nullptr;   // device memory is reached through buffer_read / buffer_write
  p.buffer_wrap_host = nullptr;  // the host uploads weights with buffer_alloc + buffer_write
  p.buffer_write = write;
  p.buffer_read = read;
  p.step_begin = step_begin;
  p.step_end = step_end;
  return p;
}

}  // namespace
}  // namespace tessera::cuda

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = tessera::cuda::make_plugin();
  return &plugin;
}
