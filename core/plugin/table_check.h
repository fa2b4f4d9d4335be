// Validation of the table a plugin's entry point returns, before the host uses any
// of it: version and size first, then the required slots and the kernel list.
#pragma once

#include <string>

#include <tessera/plugin_abi.h>

namespace tessera {

// Throws tessera::Error "<file>: <cause>" for the first problem found, e.g.
// "libfoo.so: plugin ABI version 7 is not supported by this host (expects 1)".
// Checks, in order: non-null; abi_version == TSR_ABI_VERSION; struct_size at least
// sizeof(tsr_plugin) (a bigger table from a newer minor revision is accepted); the
// required slots (for a kernel plugin, one with `extends` set: only name and last_error,
// and a non-empty `extends` other than its own name); a non-empty name; kernel_count
// >= 0 with a non-null list when positive; each kernel with a known op and dtype and a
// non-null run (and op_name set exactly for TSR_OP_CUSTOM); the declared ops
// (op_decl_check.h).
void check_plugin_table(const tsr_plugin* table, const std::string& file);

}  // namespace tessera
