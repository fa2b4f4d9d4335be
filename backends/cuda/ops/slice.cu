// SLICE: one thread per output element (grid-stride).
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

__global__ void slice_kernel(const float* x, float* out, int64_t rows, int64_t x_cols, int64_t start, int64_t count,
                             int64_t stride, int64_t groups) {
  const int64_t out_cols = groups * count, total = rows * out_cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t n = i / out_cols, c = i % out_cols;
    out[i] = x[n * x_cols + start + (c / count) * stride + c % count];
  }
}

}  // namespace

void launch_slice(const float* x, float* out, int64_t rows, int64_t x_cols, int64_t start, int64_t count,
                  int64_t stride, int64_t groups, cudaStream_t stream) {
  const int64_t total = rows * groups * count;
  if (total == 0) return;
  slice_kernel<<<grid_for(total), kThreads, 0, stream>>>(x, out, rows, x_cols, start, count, stride, groups);
  check_launch("slice kernel");
}

}  // namespace tessera::cuda
