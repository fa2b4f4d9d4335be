// MATMUL's device code: the decode GEMV (one warp per weight row, every token's sums
// in registers, the weight decoded in registers with the kit's formulas: see
// accumulate_row),
// and the conversions that feed cuBLAS (x to f16/bf16, a weight to f16).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/ops/block_rows.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

constexpr int kGemvWarps = 4;  // weight rows per block

template <class B>
__global__ void gemv_kernel(const uint8_t* w, int64_t w_row_bytes, const float* x, float* out, int n_rows, int64_t k,
                            int64_t m) {
  const int lane = threadIdx.x % 32;
  const int64_t row = blockIdx.x * int64_t{kGemvWarps} + threadIdx.x / 32;
  if (row >= m) return;
  float acc[kGemvMaxRows] = {};
  accumulate_row<B>(w + row * w_row_bytes, x, k, k, n_rows, lane, acc);
#pragma unroll
  for (int r = 0; r < kGemvMaxRows; ++r) {
    float s = acc[r];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0 && r < n_rows) out[r * m + row] = s;
  }
}

__global__ void to_half_kernel(const float* x, uint16_t* out, int64_t n, bool to_bf16) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = to_bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x[i])) : __half_as_ushort(__float2half_rn(x[i]));
  }
}

template <class B>
__global__ void dequantize_f16_kernel(const uint8_t* w, int64_t row_bytes, uint16_t* out, int64_t rows,
                                      int64_t cols) {
  const int64_t total = rows * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / cols, c = i % cols;
    out[i] = __half_as_ushort(__float2half_rn(row_value<B>(w + r * row_bytes, c)));
  }
}

}  // namespace

void launch_gemv(tsr_dtype w_dtype, const void* w, int64_t w_row_bytes, const float* x, float* out, int64_t n_rows,
                 int64_t k, int64_t m, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((m + kGemvWarps - 1) / kGemvWarps);
  const bool known = with_block_type(w_dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    gemv_kernel<B><<<blocks, kGemvWarps * 32, 0, stream>>>(static_cast<const uint8_t*>(w), w_row_bytes, x, out,
                                                           static_cast<int>(n_rows), k, m);
  });
  if (!known) throw CudaError(TSR_E_INVALID_ARGUMENT, "matmul: no CUDA kernel for dtype " + std::to_string(w_dtype));
  check_launch("matmul gemv kernel");
}

void launch_to_half(const float* x, uint16_t* out, int64_t n, bool to_bf16, cudaStream_t stream) {
  if (n == 0) return;
  to_half_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, out, n, to_bf16);
  check_launch("matmul conversion kernel");
}

void launch_dequantize_f16(tsr_dtype dtype, const void* w, int64_t row_bytes, uint16_t* out, int64_t rows,
                           int64_t cols, cudaStream_t stream) {
  const bool known = with_block_type(dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    dequantize_f16_kernel<B><<<grid_for(rows * cols), kThreads, 0, stream>>>(static_cast<const uint8_t*>(w),
                                                                             row_bytes, out, rows, cols);
  });
  if (!known) throw CudaError(TSR_E_INVALID_ARGUMENT, "matmul: no CUDA kernel for dtype " + std::to_string(dtype));
  check_launch("matmul dequantisation kernel");
}

}  // namespace tessera::cuda
