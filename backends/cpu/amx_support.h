// Whether this process may use AMX int8 tiles: the processor reports AMX-TILE and
// AMX-INT8 (cpuid leaf 7) and Linux granted the tile state on request (arch_prctl
// ARCH_REQ_XCOMP_PERM). Asked once; kernels built without AMX never ask.
#pragma once

#include <string>

namespace tessera::cpu {

bool amx_usable();

// "usable", or why not ("the processor has no AMX-INT8", "Linux refused the tile state: ...").
const std::string& amx_status();

// Whether the bf16 tiles are usable too: amx_usable() and the processor reports AMX-BF16.
bool amx_bf16_usable();

}  // namespace tessera::cpu
