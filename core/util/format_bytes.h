// Byte counts for people: "512 B", "1.0 MiB", "2.1 GiB" (binary units). One
// formatter for every message and report, so sizes read the same everywhere.
#pragma once

#include <string>

namespace tessera {

// Bytes below 1024 print as an integer; larger values with `decimals` digits in the
// largest unit that keeps the figure under 1024 after rounding.
std::string format_bytes(double bytes, int decimals = 1);

}  // namespace tessera
