// Weight data between layouts and element types, for the converters: a matrix stored
// [in, out] (Hugging Face Conv1D) turned back to [out, in], any dtype to the one written.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"

namespace tessera::cli {

// Whether a tensor stored as `dtype` can be transposed element by element (f32, f16,
// bf16); blocks of quantised types span several columns and cannot.
bool transposable(DType dtype);

// A GgufWriter row filler producing `src` in `dst_dtype`: row by row as stored, or,
// when `transposed`, the rows of the [out, in] matrix whose transpose `src` stores as
// [in, out]. `src` must stay valid until the writer has written; its dtype must be
// transposable() when `transposed`. Rows equal in dtype are copied bit for bit.
GgufWriter::RowFiller converted_rows(const TensorView& src, bool transposed, DType dst_dtype);

// `values` ([rows, cols] row-major) as bytes of `dtype` (f32, f16 or bf16), stored
// [cols, rows] when `transpose`. Each value is rounded as quantize_row() rounds it.
std::vector<uint8_t> encode_matrix(const std::vector<float>& values, int64_t rows, int64_t cols, DType dtype,
                                   bool transpose);

}  // namespace tessera::cli
