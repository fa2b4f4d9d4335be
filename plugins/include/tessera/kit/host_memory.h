// What the host system can still give: for the CLI's choice between reading a weights
// file into memory and mapping it, and for a host backend's choice to keep a second,
// faster-to-read copy of a weight.
#pragma once

#include <cstdint>

namespace tessera::kit {

// MemAvailable of /proc/meminfo in bytes (memory that can be had without swapping, page
// cache included); 0 where it cannot be read.
uint64_t memory_available_bytes();

}  // namespace tessera::kit
