// The glue of a backend's ABI table that every backend writes alike: where a slot's
// failure message goes (the device's last error, or the plugin's without a device), the
// exception guard around each slot, the argument checks of the device and copy slots,
// and the fixed fields of the table. A backend adds its devices, buffers and kernels.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <tessera/plugin_abi.h>

#include <tessera/kit/guard.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/last_error.h>

namespace tessera::kit {

// The slots of a backend whose open devices are `Device` objects (the `void*` handles
// of the ABI) with `void set_error(std::string) noexcept` and
// `const char* last_error() const`; `plugin_error` is the plugin's message slot for
// failures without a device; `StatusErrors` are the backend's own exception types
// that carry a status (see guard.h).
template <class Device, LastError& (*plugin_error)(), class... StatusErrors>
struct PluginSlots {
  // Where a failure's message goes: the device's last error, or the plugin's.
  static void record(void* device, std::string message) noexcept {
    if (device) {
      static_cast<Device*>(device)->set_error(std::move(message));
    } else {
      plugin_error().set(message);
    }
  }

  // Records a failure and returns `status`. May throw bad_alloc while the caller
  // composes the message; call it inside guarded().
  static tsr_status failure(void* device, tsr_status status, std::string message) {
    record(device, std::move(message));
    return status;
  }

  // Runs `fn` (returning a tsr_status) for the ABI slot `slot`: an exception becomes a
  // status, and "<slot>: <what>" the last error (of `device`, or the plugin's).
  template <class Fn>
  static tsr_status guarded(void* device, const char* slot, Fn&& fn) noexcept {
    return guard_slot<StatusErrors...>(
        slot, [device](std::string message) noexcept { record(device, std::move(message)); },
        std::forward<Fn>(fn));
  }

  // The last_error slot.
  static const char* last_error(void* device) noexcept {
    return device ? static_cast<const Device*>(device)->last_error() : plugin_error().get();
  }
};

// The checks below throw KernelError(TSR_E_INVALID_ARGUMENT); inside guarded() their
// text follows the slot's name, e.g. "device_info: no cpu device 1 (there is 1)".

// Unless 0 <= index < count: "no <backend> device <index> (there is 1 / there are N)".
void check_device_index(std::string_view backend, int32_t index, int32_t count);

// Unless `pointer` is set: "<what> is null".
void check_not_null(const void* pointer, std::string_view what);

// A buffer_write / buffer_read of `size` bytes at `offset` in a buffer of `capacity`
// bytes, to or from `host`: "host pointer is null" (size > 0 only), or "<size> bytes at
// offset <offset> overrun a buffer of <capacity> bytes".
void check_copy_range(const void* host, uint64_t offset, uint64_t size, uint64_t capacity);

// A backend's table with its fixed fields set (ABI version, struct size, name, version,
// kernels) and every slot null; the backend fills in its slots.
tsr_plugin backend_table(const char* name, const char* version, const tsr_kernel_desc* kernels,
                         int32_t kernel_count);

}  // namespace tessera::kit
