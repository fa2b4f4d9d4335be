// The scale scan of block-format data; see block_check.h.
#include <tessera/kit/block_check.h>

#include <cstring>

#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/half.h>

namespace tessera::kit {
namespace {

struct ScaleField {
  int offset;
  const char* name;
};

// Byte offsets of the f16 scales inside one block (at most two per format).
int scale_fields(tsr_dtype t, ScaleField* out) {
  switch (t) {
    case TSR_DTYPE_Q8_0:
    case TSR_DTYPE_Q4_0:
    case TSR_DTYPE_Q5_0:
    case TSR_DTYPE_IQ4_NL:
    case TSR_DTYPE_IQ4_XS: out[0] = {0, "d"}; return 1;
    case TSR_DTYPE_Q4_1:
    case TSR_DTYPE_Q5_1: out[0] = {0, "d"}; out[1] = {2, "m"}; return 2;
    case TSR_DTYPE_Q4_K:
    case TSR_DTYPE_Q5_K: out[0] = {0, "d"}; out[1] = {2, "dmin"}; return 2;
    case TSR_DTYPE_Q2_K: out[0] = {80, "d"}; out[1] = {82, "dmin"}; return 2;
    case TSR_DTYPE_Q3_K: out[0] = {108, "d"}; return 1;
    case TSR_DTYPE_Q6_K: out[0] = {208, "d"}; return 1;
    default: return 0;
  }
}

}  // namespace

BadScale first_nonfinite_scale(tsr_dtype t, const void* data, int64_t n_blocks) {
  ScaleField fields[2];
  const int n_fields = scale_fields(t, fields);
  const int64_t block_bytes = dtype_traits(t).block_bytes;
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (int64_t b = 0; b < n_blocks && n_fields > 0; ++b) {
    for (int f = 0; f < n_fields; ++f) {
      const int64_t at = b * block_bytes + fields[f].offset;
      uint16_t h;
      std::memcpy(&h, bytes + at, sizeof h);
      if (!f16_is_finite(h)) return {b, at, f16_to_f32(h), fields[f].name};
    }
  }
  return {};
}

}  // namespace tessera::kit
