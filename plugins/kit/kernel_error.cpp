// KernelError's one helper: the invalid-argument failure every argument check uses.
#include <tessera/kit/kernel_error.h>

namespace tessera::kit {

void fail(std::string_view op, const std::string& message) {
  throw KernelError(TSR_E_INVALID_ARGUMENT, std::string(op) + ": " + message);
}

}  // namespace tessera::kit
