// GET_ROWS: one thread per output element, the table's value formula (block_rows.h); an
// index outside the table is reported by its row's first thread, and the row is zero.
#include "backends/cuda/ops/block_rows.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

template <class B>
__global__ void get_rows_kernel(const uint8_t* table, int64_t row_bytes, int64_t n_rows, const int32_t* idx,
                                float* out, int64_t n, int64_t cols, ErrorSink errors) {
  const int64_t total = n * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / cols, c = i % cols;
    const int32_t id = idx[r];
    if (id < 0 || id >= n_rows) {
      if (c == 0) report_error(errors, kit::kRowIdOutside, r, id);
      out[i] = 0.0f;
      continue;
    }
    out[i] = row_value<B>(table + id * row_bytes, c);
  }
}

}  // namespace

void launch_get_rows(tsr_dtype dtype, const void* table, int64_t row_bytes, int64_t n_rows, const int32_t* idx,
                     float* out, int64_t n, int64_t cols, const ErrorSink& errors, cudaStream_t stream) {
  const bool known = with_block_type(dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    get_rows_kernel<B><<<grid_for(n * cols), kThreads, 0, stream>>>(static_cast<const uint8_t*>(table), row_bytes,
                                                                    n_rows, idx, out, n, cols, errors);
  });
  if (!known) throw CudaError(TSR_E_INVALID_ARGUMENT, "get_rows: no CUDA kernel for dtype " + std::to_string(dtype));
  check_launch("get_rows kernel");
}

}  // namespace tessera::cuda
