// The checks every ROPE kernel makes of its params (sizes, pairing, YaRN, Llama 3.1
// scaling), so that backends refuse the same calls with the same messages.
#pragma once

#include <tessera/plugin_abi.h>

namespace tessera::kit {

// Throws KernelError (fail("rope", ...)) for params no ROPE kernel can run.
void check_rope_params(const tsr_rope_params& p);

}  // namespace tessera::kit
