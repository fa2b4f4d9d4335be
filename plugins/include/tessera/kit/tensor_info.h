// What a kernel knows about a tensor once its descriptor is checked: dtype and shape,
// seen as a matrix of rows() x cols(), and the dtype facts (row bytes, alignment) and
// labels ("f32", "[3, 4]") that kernels and their messages share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <tessera/plugin_abi.h>

#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {

inline constexpr int64_t kQ8Block = kQK;                         // elements per q8_0 block
inline constexpr int64_t kQ8BlockBytes = sizeof(BlockQ8_0);      // f16 scale + 32 int8

struct TensorInfo {
  tsr_dtype dtype = TSR_DTYPE_F32;
  int32_t ndim = 1;
  int64_t shape[4] = {1, 1, 1, 1};  // outermost first; entries past ndim are 1

  int64_t cols() const { return shape[ndim - 1]; }  // the innermost dimension
  int64_t rows() const;                             // all outer dimensions flattened
  int64_t elements() const { return rows() * cols(); }
  int64_t row_bytes() const;                        // bytes of one row of cols() elements
};

// Bytes of `cols` elements of `dtype` in one row (block formats: whole blocks, e.g.
// q8_0 cols / 32 * 34; a partial block is rounded down, checked elsewhere).
int64_t dtype_row_bytes(tsr_dtype dtype, int64_t cols);

// The alignment element 0 needs: 4 for f32 and i32, 2 for the 16-bit types and the
// block formats (whose blocks are built of 16-bit and 8-bit fields).
int64_t dtype_alignment(tsr_dtype dtype);

std::string_view dtype_label(tsr_dtype dtype);  // "f32", "q4_k", ..., "unknown"
std::string shape_label(const TensorInfo& t);   // "[3, 4]"

}  // namespace tessera::kit
