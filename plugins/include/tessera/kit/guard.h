// The exception boundary of a plugin: every ABI slot and kernel entry runs its C++ body
// through one of these guards, so no exception crosses into the host; a failure
// becomes a tsr_status and a message for last_error.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <tessera/plugin_abi.h>

#include <tessera/kit/kernel_error.h>
#include <tessera/kit/last_error.h>

namespace tessera::kit {

// An exception caught at the boundary.
struct Failure {
  tsr_status status = TSR_E_INTERNAL;
  std::string message;     // what() of the exception ("" if it cannot be copied)
  bool unexpected = true;  // false for errors that carry their status (KernelError, ...)
};

// Call only inside a catch handler: the exception being handled as a Failure.
// KernelError, and each of `StatusErrors` (a plugin's own exception types with status()
// and what()), keep their status and message; std::bad_alloc is TSR_E_OUT_OF_MEMORY
// "out of memory"; any other exception TSR_E_INTERNAL with its what(), or "unknown
// exception". Never throws.
template <class... StatusErrors>
Failure current_failure() noexcept;

// a + b + c, or "" when that cannot be allocated. Never throws.
std::string join_message(std::string_view a, std::string_view b = {},
                         std::string_view c = {}) noexcept;

// Runs `body()` (returning tsr_status) for the ABI slot named `slot`. An exception
// becomes its Failure's status, and record("<slot>: <message>") gets the text, e.g.
// "buffer_alloc: out of memory". `record` takes a std::string and must not throw.
template <class... StatusErrors, class Record, class Body>
tsr_status guard_slot(std::string_view slot, Record&& record, Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    const Failure f = current_failure<StatusErrors...>();
    record(join_message(slot, ": ", f.message));
    return f.status;
  }
}

// The boundary of a kernel entry of the plugin called `plugin` ("cpu"): fails with
// TSR_E_INVALID_ARGUMENT unless `call` is set and is for `op` ("kernel for op 6 called
// with op 7"), then runs body(*call). A KernelError (or one of `StatusErrors`) gives its
// status and message unchanged; std::bad_alloc gives "out of memory in a cpu kernel";
// anything else TSR_E_INTERNAL "internal error in a cpu kernel: <what>". The message
// goes to record(std::string), which must not throw.
template <class... StatusErrors, class Record, class Body>
tsr_status run_guarded(const tsr_op_call* call, tsr_op op, std::string_view plugin, Record&& record,
                       Body&& body) noexcept;

// run_guarded for a backend's kernel entry, whose device handle is a `Device*` with
// `void set_error(std::string) noexcept`: a null device fails with TSR_E_INVALID_ARGUMENT
// and "kernel called without a device" in `plugin_error`; otherwise body(device, call)
// runs and a failure's message goes to the device's set_error.
template <class Device, class... StatusErrors>
tsr_status run_device_kernel(void* device, const tsr_op_call* call, tsr_op op, std::string_view plugin,
                             LastError& plugin_error,
                             void (*body)(Device& device, const tsr_op_call& call)) noexcept {
  if (device == nullptr) {
    plugin_error.set("kernel called without a device");
    return TSR_E_INVALID_ARGUMENT;
  }
  Device& dev = *static_cast<Device*>(device);
  return run_guarded<StatusErrors...>(
      call, op, plugin, [&dev](std::string message) noexcept { dev.set_error(std::move(message)); },
      [&dev, body](const tsr_op_call& checked) { body(dev, checked); });
}

// ---- implementation ------------------------------------------------------------

namespace detail {
Failure failure_of(tsr_status status, const char* what, bool unexpected) noexcept;
Failure standard_failure() noexcept;  // current_failure() without extra types
std::string kernel_failure_text(const Failure& f, std::string_view plugin) noexcept;
void check_call(const tsr_op_call* call, tsr_op op);

// Tries each type in order, then the standard mapping.
template <class... StatusErrors>
struct FailureOf {
  static Failure current() noexcept { return standard_failure(); }
};
template <class First, class... More>
struct FailureOf<First, More...> {
  static Failure current() noexcept {
    try {
      throw;
    } catch (const First& e) {
      return failure_of(static_cast<tsr_status>(e.status()), e.what(), false);
    } catch (...) {
      return FailureOf<More...>::current();
    }
  }
};
}  // namespace detail

template <class... StatusErrors>
Failure current_failure() noexcept {
  return detail::FailureOf<StatusErrors...>::current();
}

template <class... StatusErrors, class Record, class Body>
tsr_status run_guarded(const tsr_op_call* call, tsr_op op, std::string_view plugin, Record&& record,
                       Body&& body) noexcept {
  try {
    detail::check_call(call, op);
    std::forward<Body>(body)(*call);
    return TSR_OK;
  } catch (...) {
    const Failure f = current_failure<StatusErrors...>();
    record(detail::kernel_failure_text(f, plugin));
    return f.status;
  }
}

}  // namespace tessera::kit
