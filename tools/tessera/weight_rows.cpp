#include "tools/tessera/weight_rows.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include "core/util/error.h"

namespace tessera::cli {
namespace {

// Element `index` of an element-wise (transposable) tensor, as f32.
float element_as_f32(DType dtype, const uint8_t* data, int64_t index) {
  switch (dtype) {
    case DType::F32: {
      float v;
      std::memcpy(&v, data + index * 4, sizeof v);
      return v;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, data + index * 2, sizeof h);
      return dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
    }
    default:
      throw Error("cannot read single " + std::string(dtype_name(dtype)) + " elements");
  }
}

// Calls fn(begin, end) over [0, n) split among the hardware threads; rethrows the first
// exception after all have finished.
template <class Fn>
void parallel_rows(int64_t n, Fn&& fn) {
  const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), std::max<int64_t>(n / 16, 1));
  if (threads <= 1) return fn(int64_t{0}, n);
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  for (int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        fn(n * t / threads, n * (t + 1) / threads);
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
    });
  }
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

bool transposable(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

GgufWriter::RowFiller converted_rows(const TensorView& src, bool transposed, DType dst_dtype) {
  const auto* bytes = static_cast<const uint8_t*>(src.data);
  const DType src_dtype = src.dtype;
  if (transposed) {
    if (src.shape.size() != 2 || !transposable(src_dtype)) {
      throw Error("cannot transpose '" + src.name + "': only f32, f16 and bf16 matrices can be");
    }
    // src: [in, out]; the rows written are those of [out, in].
    const int64_t in = src.shape[0], out = src.shape[1];
    return [=](int64_t first_row, int64_t n_rows, void* dst) {
      std::vector<float> row(static_cast<size_t>(in));
      const int64_t dst_row_bytes = dtype_row_bytes(dst_dtype, in);
      for (int64_t r = 0; r < n_rows; ++r) {
        for (int64_t c = 0; c < in; ++c) row[c] = element_as_f32(src_dtype, bytes, c * out + first_row + r);
        quantize_row(dst_dtype, row.data(), static_cast<uint8_t*>(dst) + r * dst_row_bytes, in);
      }
    };
  }
  const int64_t cols = src.shape.empty() ? 1 : src.shape.back();
  return [=](int64_t first_row, int64_t n_rows, void* dst) {
    const int64_t src_row_bytes = dtype_row_bytes(src_dtype, cols);
    const uint8_t* from = bytes + first_row * src_row_bytes;
    if (src_dtype == dst_dtype) {
      std::memcpy(dst, from, static_cast<size_t>(n_rows * src_row_bytes));
      return;
    }
    const int64_t dst_row_bytes = dtype_row_bytes(dst_dtype, cols);
    // Quantisers that search scales are slow: rows are shared out among the cores.
    parallel_rows(n_rows, [&](int64_t begin, int64_t end) {
      std::vector<float> row(static_cast<size_t>(cols));
      for (int64_t r = begin; r < end; ++r) {
        dequantize_row(src_dtype, from + r * src_row_bytes, row.data(), cols);
        quantize_row(dst_dtype, row.data(), static_cast<uint8_t*>(dst) + r * dst_row_bytes, cols);
      }
    });
  };
}

std::vector<uint8_t> encode_matrix(const std::vector<float>& values, int64_t rows, int64_t cols, DType dtype,
                                   bool transpose) {
  if (!transposable(dtype)) throw Error("cannot store " + std::string(dtype_name(dtype)) + " element by element");
  const int64_t element_bytes = dtype_row_bytes(dtype, 1);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols * element_bytes));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t at = transpose ? c * rows + r : r * cols + c;  // stored [cols, rows] when transposed
      quantize_row(dtype, &values[static_cast<size_t>(r * cols + c)], out.data() + at * element_bytes, 1);
    }
  }
  return out;
}

}  // namespace tessera::cli
