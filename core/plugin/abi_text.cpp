#include "core/plugin/abi_text.h"

#include <array>
#include <cstdio>

namespace tessera {

std::string status_text(tsr_status status) {
  switch (status) {
    case TSR_OK: return "ok";
    case TSR_E_INVALID_ARGUMENT: return "invalid argument";
    case TSR_E_OUT_OF_MEMORY: return "out of memory";
    case TSR_E_UNSUPPORTED: return "unsupported";
    case TSR_E_DEVICE: return "device error";
    case TSR_E_INTERNAL: return "internal error";
    default: return "status " + std::to_string(status);
  }
}

}  // namespace tessera
