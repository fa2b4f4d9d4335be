// The Vulkan backend as a Tessera plugin: the ABI table (the runtime's devices,
// sub-allocated device buffers, steps as command buffers, the kernels of kernel_table)
// and the exported entry point. Every slot runs behind the plugin kit's guard and
// answers with a status code.
#include <string>
#include <utility>

#include <tessera/kit/guard.h>
#include <tessera/plugin_abi.h>

#include "backends/vulkan/buffer.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/kernel_table.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kPluginVersion = "0.1.0";

VulkanDevice* as_device(void* device) { return static_cast<VulkanDevice*>(device); }

// Where a failure's message goes: the device's last error, or the plugin's without one.
void record_error(void* device, std::string message) noexcept {
  if (device) {
    as_device(device)->set_error(std::move(message));
  } else {
    plugin_error().set(message);
  }
}

// Records a failure and returns `status`. May throw bad_alloc while the caller composes
// the message; callers run inside guarded().
tsr_status failure(void* device, tsr_status status, std::string message) {
  record_error(device, std::move(message));
  return status;
}

// Runs `fn` (returning a tsr_status) for the ABI slot `slot` behind the kit's guard: an
// exception becomes a status (VulkanError keeps its own), "<slot>: <what>" the last error.
template <class Fn>
tsr_status guarded(void* device, const char* slot, Fn&& fn) noexcept {
  return kit::guard_slot<VulkanError>(
      slot, [device](std::string message) noexcept { record_error(device, std::move(message)); },
      std::forward<Fn>(fn));
}

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
    return "the Vulkan runtime could not start";
  }
}

tsr_status check_index(int32_t index, const char* slot) {
  const int32_t count = device_count();
  if (index >= 0 && index < count) return TSR_OK;
  return failure(nullptr, TSR_E_INVALID_ARGUMENT,
                 std::string(slot) + ": no vulkan device " + std::to_string(index) + " (there are " +
                     std::to_string(count) + ")");
}

tsr_status device_info(int32_t index, tsr_device_info* out) {
  return guarded(nullptr, "device_info", [&]() -> tsr_status {
    if (out == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, "device_info: out is null");
    if (const tsr_status st = check_index(index, "device_info"); st != TSR_OK) return st;
    Runtime::get().describe_device(index, out);
    return TSR_OK;
  });
}

tsr_status device_open(int32_t index, const tsr_device_options*, void** device) {
  return guarded(nullptr, "device_open", [&]() -> tsr_status {
    if (device == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, "device_open: device is null");
    *device = nullptr;
    if (const tsr_status st = check_index(index, "device_open"); st != TSR_OK) return st;
    *device = new VulkanDevice(index);  // n_threads does not apply to a GPU
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

const char* last_error(void* device) { return device ? as_device(device)->last_error() : plugin_error().get(); }

tsr_status alloc(void* device, uint64_t size, tsr_buffer* out) {
  return guarded(device, "buffer_alloc", [&]() -> tsr_status {
    if (out == nullptr) return failure(device, TSR_E_INVALID_ARGUMENT, "buffer_alloc: out is null");
    *out = nullptr;
    if (device == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, "buffer_alloc: device is null");
    const Allocation allocation = as_device(device)->memory().allocate(size);
    try {
      *out = new tsr_buffer_impl{allocation};
    } catch (...) {
      as_device(device)->memory().free(allocation);
      throw;
    }
    return TSR_OK;
  });
}

void free_buffer(void* device, tsr_buffer buffer) {
  if (device == nullptr || buffer == nullptr) return;
  // Runs the pending commands first and forgets recorded steps; a failure of those
  // commands becomes the last error, the memory is freed either way.
  guarded(device, "buffer_free", [&]() -> tsr_status {
    as_device(device)->free(buffer->allocation);
    return TSR_OK;
  });
  delete buffer;
}

// Checks a buffer_write / buffer_read range; TSR_OK or a failure naming the slot.
tsr_status check_copy(void* device, const char* slot, tsr_buffer buffer, uint64_t offset, const void* host,
                      uint64_t size) {
  if (device == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, std::string(slot) + ": device is null");
  if (buffer == nullptr) return failure(device, TSR_E_INVALID_ARGUMENT, std::string(slot) + ": buffer is null");
  if (host == nullptr && size != 0) {
    return failure(device, TSR_E_INVALID_ARGUMENT, std::string(slot) + ": host pointer is null");
  }
  const uint64_t capacity = buffer->allocation.size;
  if (offset > capacity || size > capacity - offset) {
    return failure(device, TSR_E_INVALID_ARGUMENT,
                   std::string(slot) + ": " + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                       " overrun a buffer of " + std::to_string(capacity) + " bytes");
  }
  return TSR_OK;
}

tsr_status write(void* device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  return guarded(device, "buffer_write", [&]() -> tsr_status {
    const tsr_status st = check_copy(device, "buffer_write", dst, offset, src, size);
    if (st == TSR_OK) as_device(device)->write(dst->allocation, offset, src, size);
    return st;
  });
}

tsr_status read(void* device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  return guarded(device, "buffer_read", [&]() -> tsr_status {
    const tsr_status st = check_copy(device, "buffer_read", src, offset, dst, size);
    if (st == TSR_OK) as_device(device)->read(src->allocation, offset, dst, size);
    return st;
  });
}

tsr_status step_begin(void* device) {
  return guarded(device, "step_begin", [&]() -> tsr_status {
    if (device == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, "step_begin: device is null");
    as_device(device)->begin_step();
    return TSR_OK;
  });
}

tsr_status step_end(void* device) {
  return guarded(device, "step_end", [&]() -> tsr_status {
    if (device == nullptr) return failure(nullptr, TSR_E_INVALID_ARGUMENT, "step_end: device is null");
    as_device(device)->end_step();
    return TSR_OK;
  });
}

tsr_plugin make_plugin() {
  tsr_plugin p{};
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = "vulkan";
  p.version = kPluginVersion;
  p.device_count = device_count;
  p.unavailable_reason = unavailable_reason;
  p.device_info = device_info;
  p.device_open = device_open;
  p.device_close = device_close;
  p.last_error = last_error;
  p.buffer_alloc = alloc;
  p.buffer_free = free_buffer;
  p.buffer_host_ptr = nullptr;   // device memory is reached through buffer_read / buffer_write
  p.buffer_wrap_host = nullptr;  // the host uploads weights with buffer_alloc + buffer_write
  p.buffer_write = write;
  p.buffer_read = read;
  p.step_begin = step_begin;
  p.step_end = step_end;
  p.kernel_count = static_cast<int32_t>(kernel_descs().size());
  p.kernels = kernel_descs().data();
  return p;
}

}  // namespace
}  // namespace tessera::vulkan

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = tessera::vulkan::make_plugin();
  return &plugin;
}
