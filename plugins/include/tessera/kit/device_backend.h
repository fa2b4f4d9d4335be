// The ABI table of a backend with devices of its own (a GPU API, a remote machine),
// written once: device enumeration and opening, buffers with checked copy ranges,
// steps, every slot behind the kit's guard with its message in the right last-error
// slot. A backend describes itself with a struct `B` and gets its table from
// device_backend_table<B>(version, kernels); what it writes is its devices and kernels.
//
// B provides (static members; any may throw unless marked noexcept):
//   using Device = ...;                         // the open device: set_error(std::string) noexcept,
//                                               // last_error(); deleting it closes it
//   using Slots = PluginSlots<Device, plugin_error, StatusErrors...>;
//   static constexpr const char* kName;         // "cuda": "no cuda device 2 (there are 1)"
//   static constexpr const char* kNoRuntime;    // the reason when device discovery throws
//   int32_t device_count();                     // 0 when there are none
//   const std::string& unavailable_reason();    // "" with devices
//   void describe(int32_t index, tsr_device_info* out);   // index checked
//   Device* open(int32_t index, const tsr_device_options* options);  // index checked; options may be null
//   tsr_buffer alloc(Device&, uint64_t size);   // throws on failure (out of memory: a status error)
//   void free(Device&, tsr_buffer);             // releases the handle even when it throws
//   uint64_t capacity(tsr_buffer);              // the bytes a copy may reach
//   void write(Device&, tsr_buffer, uint64_t offset, const void* src, uint64_t size);  // range checked
//   void read(Device&, tsr_buffer, uint64_t offset, void* dst, uint64_t size);         // range checked
//   void begin_step(Device&);  void end_step(Device&);
#pragma once

#include <cstdint>
#include <string>

#include <tessera/plugin_abi.h>

#include <tessera/kit/plugin_slots.h>

namespace tessera::kit {

template <class B>
class DeviceBackendSlots {
 public:
  using Device = typename B::Device;
  using Slots = typename B::Slots;

  static int32_t device_count() noexcept {
    try {
      return B::device_count();
    } catch (...) {
      return 0;
    }
  }

  static const char* unavailable_reason() noexcept {
    try {
      const std::string& reason = B::unavailable_reason();
      return reason.empty() ? nullptr : reason.c_str();
    } catch (...) {
      return B::kNoRuntime;
    }
  }

  static tsr_status device_info(int32_t index, tsr_device_info* out) noexcept {
    return Slots::guarded(nullptr, "device_info", [&]() -> tsr_status {
      check_not_null(out, "out");
      check_device_index(B::kName, index, device_count());
      B::describe(index, out);
      return TSR_OK;
    });
  }

  static tsr_status device_open(int32_t index, const tsr_device_options* options, void** device) noexcept {
    return Slots::guarded(nullptr, "device_open", [&]() -> tsr_status {
      check_not_null(device, "device");
      *device = nullptr;
      check_device_index(B::kName, index, device_count());
      *device = B::open(index, options);
      return TSR_OK;
    });
  }

  static void device_close(void* device) noexcept {
    try {
      delete as_device(device);
    } catch (...) {
      // Teardown reports nothing; the device is gone either way.
    }
  }

  static tsr_status alloc(void* device, uint64_t size, tsr_buffer* out) noexcept {
    return Slots::guarded(device, "buffer_alloc", [&]() -> tsr_status {
      check_not_null(out, "out");
      *out = nullptr;
      check_not_null(device, "device");
      *out = B::alloc(*as_device(device), size);
      return TSR_OK;
    });
  }

  // A failure while freeing (pending work that failed) becomes the last error.
  static void free_buffer(void* device, tsr_buffer buffer) noexcept {
    if (device == nullptr || buffer == nullptr) return;
    Slots::guarded(device, "buffer_free", [&]() -> tsr_status {
      B::free(*as_device(device), buffer);
      return TSR_OK;
    });
  }

  static tsr_status write(void* device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) noexcept {
    return Slots::guarded(device, "buffer_write", [&]() -> tsr_status {
      check_copy(device, dst, offset, src, size);
      B::write(*as_device(device), dst, offset, src, size);
      return TSR_OK;
    });
  }

  static tsr_status read(void* device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) noexcept {
    return Slots::guarded(device, "buffer_read", [&]() -> tsr_status {
      check_copy(device, src, offset, dst, size);
      B::read(*as_device(device), src, offset, dst, size);
      return TSR_OK;
    });
  }

  static tsr_status step_begin(void* device) noexcept {
    return Slots::guarded(device, "step_begin", [&]() -> tsr_status {
      check_not_null(device, "device");
      B::begin_step(*as_device(device));
      return TSR_OK;
    });
  }

  static tsr_status step_end(void* device) noexcept {
    return Slots::guarded(device, "step_end", [&]() -> tsr_status {
      check_not_null(device, "device");
      B::end_step(*as_device(device));
      return TSR_OK;
    });
  }

 private:
  static Device* as_device(void* device) { return static_cast<Device*>(device); }

  static void check_copy(void* device, tsr_buffer buffer, uint64_t offset, const void* host, uint64_t size) {
    check_not_null(device, "device");
    check_not_null(buffer, "buffer");
    check_copy_range(host, offset, size, B::capacity(buffer));
  }
};

// The table of backend B (see above): every device, buffer and step slot; no host
// pointers (the host uploads through buffer_alloc + buffer_write).
template <class B>
tsr_plugin device_backend_table(const char* version, const tsr_kernel_desc* kernels, int32_t kernel_count) {
  using S = DeviceBackendSlots<B>;
  tsr_plugin p = backend_table(B::kName, version, kernels, kernel_count);
  p.device_count = S::device_count;
  p.unavailable_reason = S::unavailable_reason;
  p.device_info = S::device_info;
  p.device_open = S::device_open;
  p.device_close = S::device_close;
  p.last_error = B::Slots::last_error;
  p.buffer_alloc = S::alloc;
  p.buffer_free = S::free_buffer;
  p.buffer_write = S::write;
  p.buffer_read = S::read;
  p.step_begin = S::step_begin;
  p.step_end = S::step_end;
  return p;
}

}  // namespace tessera::kit
