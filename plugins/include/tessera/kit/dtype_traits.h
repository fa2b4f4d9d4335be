// What every module knows of a dtype: its name, its storage block (elements and bytes)
// and the alignment its first byte needs. One table for all dtypes of plugin_abi.h.
#pragma once

#include <cstdint>
#include <string_view>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

struct DTypeTraits {
  std::string_view name;    // "f32", "q4_k", ...: lower case, as on the command line
  std::string_view ggml;    // the ggml/GGUF type name: "f32", "q4_K", ...
  uint32_t ggml_id = 0;     // the GGUF tensor type id
  int64_t block_elems = 1;  // elements per storage block (1 for the plain types)
  int64_t block_bytes = 4;  // bytes per storage block
  int64_t alignment = 4;    // of element 0: 4 for f32/i32, 2 for the rest (f16 fields)
  bool quantized = false;   // a block format with scales
};

bool is_known_dtype(tsr_dtype dtype);
// The traits of a known dtype; an unknown code gives the traits named "unknown".
const DTypeTraits& dtype_traits(tsr_dtype dtype);
// The dtype of a name (either spelling, any case: "q4_k", "Q4_K"); false if none.
bool dtype_from_name(std::string_view name, tsr_dtype* out);
// The dtype of a GGUF tensor type id; false if Tessera has none.
bool dtype_from_ggml_id(uint32_t id, tsr_dtype* out);

}  // namespace tessera::kit
