// The non-template half of the exception boundary: mapping a caught exception to a
// status and message without ever throwing.
#include <tessera/kit/guard.h>

#include <exception>
#include <new>

namespace tessera::kit {
namespace detail {

Failure failure_of(tsr_status status, const char* what, bool unexpected) noexcept {
  Failure f;
  f.status = status;
  f.unexpected = unexpected;
  try {
    f.message = what ? what : "";
  } catch (...) {
    // No memory for the text: the status still says what happened.
  }
  return f;
}

Failure standard_failure() noexcept {
  try {
    throw;
  } catch (const KernelError& e) {
    return failure_of(e.status(), e.what(), false);
  } catch (const std::bad_alloc&) {
    return failure_of(TSR_E_OUT_OF_MEMORY, "out of memory", true);
  } catch (const std::exception& e) {
    return failure_of(TSR_E_INTERNAL, e.what(), true);
  } catch (...) {
    return failure_of(TSR_E_INTERNAL, "unknown exception", true);
  }
}

std::string kernel_failure_text(const Failure& f, std::string_view plugin) noexcept {
  if (!f.unexpected) return join_message(f.message);
  if (f.status == TSR_E_OUT_OF_MEMORY) return join_message("out of memory in a ", plugin, " kernel");
  const std::string prefix = join_message("internal error in a ", plugin, " kernel: ");
  return join_message(prefix, f.message);
}

void check_call(const tsr_op_call* call, tsr_op op) {
  if (call == nullptr) throw KernelError(TSR_E_INVALID_ARGUMENT, "kernel called without a call");
  if (call->op != op) {
    throw KernelError(TSR_E_INVALID_ARGUMENT, "kernel for op " + std::to_string(op) +
                                                  " called with op " + std::to_string(call->op));
  }
}

}  // namespace detail

std::string join_message(std::string_view a, std::string_view b, std::string_view c) noexcept {
  try {
    std::string s;
    s.reserve(a.size() + b.size() + c.size());
    s.append(a).append(b).append(c);
    return s;
  } catch (...) {
    return std::string();
  }
}

}  // namespace tessera::kit
