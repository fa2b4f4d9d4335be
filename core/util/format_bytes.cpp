#include "core/util/format_bytes.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace tessera {

std::string format_bytes(double bytes, int decimals) {
  if (bytes < 1024.0) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f B", bytes);
    return text;
  }
  static constexpr std::array<const char*, 5> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  // Move up a unit before the rounded figure would print as "1024.0".
  const double limit = 1024.0 - 0.5 * std::pow(10.0, -decimals);
  double value = bytes / 1024.0;
  size_t unit = 0;
  while (value >= limit && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, kUnits[unit]);
  return text;
}

}  // namespace tessera
