// Validation of block-format data: every f16 scale (d, m, dmin) of every block must be
// a finite number. A NaN or infinite scale would turn its block's values, and every
// dot product they enter, into NaN or infinity.
#pragma once

#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

struct BadScale {
  int64_t block = -1;       // index of the first block with a non-finite scale; -1 if none
  int64_t byte_offset = 0;  // of that scale from the start of the data
  float value = 0.0f;       // the scale (NaN or +-infinity)
  const char* field = "";   // "d", "m" or "dmin"
};

// Scans `n_blocks` blocks of dtype `t` at `data`; dtypes without scales pass.
BadScale first_nonfinite_scale(tsr_dtype t, const void* data, int64_t n_blocks);

}  // namespace tessera::kit
