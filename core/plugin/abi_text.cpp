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

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr std::array<const char*, 5> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  // Stop below 1023.95 so the rounded figure never prints as "1024.0 KiB".
  while (value >= 1023.95 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace tessera
