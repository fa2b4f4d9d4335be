#include "core/tensor/transpose.h"

#include <cstring>

namespace tessera {

std::vector<uint8_t> transpose_matrix(const void* data, int64_t rows, int64_t cols, size_t elem_bytes) {
  const auto* in = static_cast<const uint8_t*>(data);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols) * elem_bytes);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      std::memcpy(&out[static_cast<size_t>(c * rows + r) * elem_bytes],
                  &in[static_cast<size_t>(r * cols + c) * elem_bytes], elem_bytes);
    }
  }
  return out;
}

}  // namespace tessera
