// Dtype facts and labels shared by argument checks and kernel messages.
#include <tessera/kit/tensor_info.h>

namespace tessera::kit {

int64_t TensorInfo::rows() const {
  int64_t r = 1;
  for (int i = 0; i + 1 < ndim; ++i) r *= shape[i];
  return r;
}

int64_t TensorInfo::row_bytes() const { return dtype_row_bytes(dtype, cols()); }

int64_t dtype_row_bytes(tsr_dtype dtype, int64_t cols) {
  const DTypeTraits& t = dtype_traits(dtype);
  return cols / t.block_elems * t.block_bytes;
}

int64_t dtype_alignment(tsr_dtype dtype) { return dtype_traits(dtype).alignment; }

std::string_view dtype_label(tsr_dtype dtype) { return dtype_traits(dtype).name; }

std::string shape_label(const TensorInfo& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

}  // namespace tessera::kit
