// Transposing a row-major matrix of fixed-size elements: for weights a file stores
// [in, out] (Hugging Face Conv1D) while the graph reads them [out, in].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera {

// The bytes of the [cols, rows] transpose of the [rows, cols] matrix at `data`,
// whose elements are `elem_bytes` wide.
std::vector<uint8_t> transpose_matrix(const void* data, int64_t rows, int64_t cols, size_t elem_bytes);

}  // namespace tessera
