// The checks every kernel of an op makes of its params (ROPE: sizes, pairing, YaRN,
// Llama 3.1 scaling; SLICE: the columns read), so backends refuse alike.
#pragma once

#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

// Throws KernelError (fail("rope", ...)) for params no ROPE kernel can run.
void check_rope_params(const tsr_rope_params& p);

// Throws KernelError (fail("slice", ...)) unless the params read inside x's `x_cols`
// columns; returns the output width, groups * count.
int64_t check_slice_params(const tsr_slice_params& p, int64_t x_cols);

}  // namespace tessera::kit
