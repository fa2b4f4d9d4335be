// Element-wise kernels: one thread per element (grid-stride), the arithmetic of
// elementwise_math.h.
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

__global__ void binary_kernel(BinaryOp op, const float* a, const float* b, float* out, int64_t n, int64_t cols,
                              bool broadcast) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = binary_of(op, a[i], b[broadcast ? i % cols : i]);
  }
}

__global__ void unary_kernel(UnaryOp op, const float* x, float* out, int64_t n, float p0, float p1) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = unary_of(op, x[i], p0, p1);
  }
}

}  // namespace

void launch_binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n, int64_t cols, bool broadcast,
                   cudaStream_t stream) {
  if (n == 0) return;
  binary_kernel<<<grid_for(n), kThreads, 0, stream>>>(op, a, b, out, n, cols, broadcast);
  check_launch("binary kernel");
}

void launch_unary(UnaryOp op, const float* x, float* out, int64_t n, float p0, float p1, cudaStream_t stream) {
  if (n == 0) return;
  unary_kernel<<<grid_for(n), kThreads, 0, stream>>>(op, x, out, n, p0, p1);
  check_launch("unary kernel");
}

}  // namespace tessera::cuda
