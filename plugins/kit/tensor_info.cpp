// Dtype facts and labels shared by argument checks and kernel messages.
#include <tessera/kit/tensor_info.h>

namespace tessera::kit {

int64_t TensorInfo::rows() const {
  int64_t r = 1;
  for (int i = 0; i + 1 < ndim; ++i) r *= shape[i];
  return r;
}

int64_t TensorInfo::row_bytes() const { return dtype_row_bytes(dtype, cols()); }

bool is_known_dtype(tsr_dtype dtype) { return dtype >= 0 && dtype < TSR_DTYPE_COUNT; }

int64_t dtype_row_bytes(tsr_dtype dtype, int64_t cols) {
  switch (dtype) {
    case TSR_DTYPE_F16:
    case TSR_DTYPE_BF16: return cols * 2;
    case TSR_DTYPE_Q8_0: return cols / kQ8Block * kQ8BlockBytes;
    default: return cols * 4;  // f32, i32
  }
}

int64_t dtype_alignment(tsr_dtype dtype) {
  return (dtype == TSR_DTYPE_F32 || dtype == TSR_DTYPE_I32) ? 4 : 2;
}

std::string_view dtype_label(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_BF16: return "bf16";
    case TSR_DTYPE_Q8_0: return "q8_0";
    case TSR_DTYPE_I32: return "i32";
    default: return "unknown";
  }
}

std::string shape_label(const TensorInfo& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

}  // namespace tessera::kit
