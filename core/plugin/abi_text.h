// Human-readable text for values of the plugin ABI, shared by the host's error
// messages and the `tessera backends` listing (byte counts: core/util/format_bytes.h).
#pragma once

#include <cstdint>
#include <string>

#include <tessera/plugin_abi.h>

#include "core/util/format_bytes.h"

namespace tessera {

// "invalid argument", "out of memory", ... ; "status 42" for codes the ABI does not define.
std::string status_text(tsr_status status);

}  // namespace tessera
