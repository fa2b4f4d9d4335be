// The text `tessera backends` prints: where plugins were looked for, each loaded
// plugin with its devices (or, for a kernel plugin, the backend it extends) and
// kernels, then the refused files and why.
#pragma once

#include <string>

#include "core/plugin/plugin_host.h"

namespace tessera {

// Example:
//   plugin search path:
//     /opt/tessera/lib/tessera
//     /usr/local/lib/tessera (not found)
//
//   plugin cpu 0.1.0 (ABI 1)
//     file: /opt/tessera/lib/tessera/libtessera_cpu.so
//     device cpu:0: AMD EPYC (2 threads, AVX2), memory 15.6 GiB
//     kernels:
//       add: f32
//       matmul: f32 f16 bf16 q8_0
//
//   plugin fast_silu 0.1.0 (ABI 1)
//     file: /opt/tessera/lib/tessera/libfast_silu.so
//     extends cpu: its kernels run on cpu devices
//     kernels:
//       silu: f32
//       swiglu: f32
//
//   refused:
//     /opt/x/libold.so: plugin ABI version 7 is not supported by this host (expects 1)
// Device queries that fail are shown in place; this function does not throw for them.
std::string describe_plugins(const PluginHost& host);

}  // namespace tessera
