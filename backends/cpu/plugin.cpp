// The CPU backend as a Tessera plugin: the ABI table (one device, host buffers, the
// kernels of kernel_table) and the exported entry point. Every slot runs behind the
// plugin kit's guard (kit/plugin_slots.h) and answers with a status code.
#include <cstddef>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include <tessera/kit/plugin_slots.h>
#include <tessera/plugin_abi.h>

#include "backends/cpu/buffer.h"
#include "backends/cpu/device.h"
#include "backends/cpu/kernel_table.h"

namespace tessera::cpu {
namespace {

constexpr const char* kPluginVersion = "0.1.0";

using Slots = kit::PluginSlots<CpuDevice, plugin_error>;

int32_t device_count() { return 1; }

const char* unavailable_reason() { return nullptr; }

tsr_status device_info(int32_t index, tsr_device_info* out) {
  return Slots::guarded(nullptr, "device_info", [&]() -> tsr_status {
    kit::check_not_null(out, "out");
    kit::check_device_index("cpu", index, 1);
    describe_cpu_device(out);
    return TSR_OK;
  });
}

tsr_status device_open(int32_t index, const tsr_device_options* options, void** device) {
  return Slots::guarded(nullptr, "device_open", [&]() -> tsr_status {
    kit::check_not_null(device, "device");
    *device = nullptr;
    kit::check_device_index("cpu", index, 1);
    int32_t n_threads = 0;
    // Read n_threads only if the host's struct is recent enough to have it.
    if (options != nullptr &&
        options->struct_size >= offsetof(tsr_device_options, n_threads) + sizeof(int32_t)) {
      n_threads = options->n_threads;
    }
    if (n_threads < 0) {
      return Slots::failure(nullptr, TSR_E_INVALID_ARGUMENT,
                     "device_open: n_threads must be >= 0, got " + std::to_string(n_threads));
    }
    try {
      *device = new CpuDevice(n_threads);
    } catch (const std::system_error& e) {
      return Slots::failure(nullptr, TSR_E_DEVICE,
                     std::string("device_open: cannot start worker threads: ") + e.what());
    }
    return TSR_OK;
  });
}

void device_close(void* device) { delete static_cast<CpuDevice*>(device); }

tsr_status alloc(void* device, uint64_t size, tsr_buffer* out) {
  return Slots::guarded(device, "buffer_alloc", [&]() -> tsr_status {
    kit::check_not_null(out, "out");
    *out = nullptr;
    const uint64_t ram = physical_memory_bytes();
    if (ram != 0 && size > ram) {
      return Slots::failure(device, TSR_E_OUT_OF_MEMORY,
                     "buffer_alloc: " + std::to_string(size) + " bytes exceed the " +
                         std::to_string(ram) + " bytes of physical memory");
    }
    *out = buffer_alloc(size);
    if (*out == nullptr) {
      return Slots::failure(device, TSR_E_OUT_OF_MEMORY,
                     "buffer_alloc: cannot allocate " + std::to_string(size) + " bytes");
    }
    return TSR_OK;
  });
}

void free_buffer(void*, tsr_buffer buffer) { buffer_free(buffer); }

void* host_ptr(void*, tsr_buffer buffer) { return buffer ? buffer->data : nullptr; }

tsr_status wrap_host(void* device, void* ptr, uint64_t size, tsr_buffer* out) {
  return Slots::guarded(device, "buffer_wrap_host", [&]() -> tsr_status {
    kit::check_not_null(out, "out");
    *out = nullptr;
    if (ptr == nullptr && size != 0) {
      return Slots::failure(device, TSR_E_INVALID_ARGUMENT,
                     "buffer_wrap_host: null pointer for " + std::to_string(size) + " bytes");
    }
    *out = buffer_wrap(ptr, size);
    if (*out == nullptr) return Slots::failure(device, TSR_E_OUT_OF_MEMORY, "buffer_wrap_host: out of memory");
    return TSR_OK;
  });
}

// Checks a buffer_write / buffer_read range (throws KernelError).
void check_copy(tsr_buffer buffer, uint64_t offset, const void* host, uint64_t size) {
  kit::check_not_null(buffer, "buffer");
  kit::check_copy_range(host, offset, size, buffer->size);
}

tsr_status write(void* device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  return Slots::guarded(device, "buffer_write", [&]() -> tsr_status {
    check_copy(dst, offset, src, size);
    if (size != 0) {
      std::memcpy(dst->data + offset, src, size);
      dst->repacked.clear();  // made from the bytes before
    }
    return TSR_OK;
  });
}

tsr_status read(void* device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  return Slots::guarded(device, "buffer_read", [&]() -> tsr_status {
    check_copy(src, offset, dst, size);
    if (size != 0) std::memcpy(dst, src->data + offset, size);
    return TSR_OK;
  });
}

tsr_plugin make_plugin() {
  tsr_plugin p = kit::backend_table("cpu", kPluginVersion, kernel_descs().data(),
                                     static_cast<int32_t>(kernel_descs().size()));
  p.device_count = device_count;
  p.unavailable_reason = unavailable_reason;
  p.device_info = device_info;
  p.device_open = device_open;
  p.device_close = device_close;
  p.last_error = Slots::last_error;
  p.buffer_alloc = alloc;
  p.buffer_free = free_buffer;
  p.buffer_host_ptr = host_ptr;
  p.buffer_wrap_host = wrap_host;
  p.buffer_write = write;
  p.buffer_read = read;
  p.step_begin = nullptr;  // synchronous: every kernel has finished when it returns
  p.step_end = nullptr;
  return p;
}

}  // namespace
}  // namespace tessera::cpu

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = tessera::cpu::make_plugin();
  return &plugin;
}
