// Human-readable text for values of the plugin ABI and for byte counts, shared by
// the host's error messages and the `tessera backends` listing.
#pragma once

#include <cstdint>
#include <string>

#include <tessera/plugin_abi.h>

namespace tessera {

// "invalid argument", "out of memory", ... ; "status 42" for codes the ABI does not define.
std::string status_text(tsr_status status);

// "512 B", "1.0 KiB", "2.1 GiB": binary units, one decimal above bytes.
std::string format_bytes(uint64_t bytes);

}  // namespace tessera
