// Norms: one block of kNormThreads per vector; the statistics are summed per thread,
// then across the block (warp shuffles, then one value per warp in shared memory).
// Layer norm takes two passes (mean, then the mean of (x - mean)^2), as the CPU
// reference does, so there is no cancellation.
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

constexpr int kNormThreads = 256;

// The sum of `v` over the block, returned to every thread.
__device__ float block_sum(float v) {
  __shared__ float partial[kNormThreads / 32];
  __shared__ float total;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float s = lane < kNormThreads / 32 ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) total = s;
  }
  __syncthreads();
  const float result = total;
  __syncthreads();  // `total` and `partial` are rewritten by the next call
  return result;
}

__global__ void norm_kernel(NormLaunch n) {
  const int64_t v = blockIdx.x;
  const float* x = n.x + v * n.group;
  float* out = n.out + v * n.group;
  const int64_t param = (v % n.groups_per_row) * n.param_stride;
  const float inv_count = 1.0f / static_cast<float>(n.group);
  float mean = 0.0f;
  if (n.layer) {
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < n.group; c += blockDim.x) s += x[c];
    mean = block_sum(s) * inv_count;
  }
  float sq = 0.0f;
  for (int64_t c = threadIdx.x; c < n.group; c += blockDim.x) {
    const float d = x[c] - mean;
    sq += d * d;
  }
  const float inv = rsqrtf(block_sum(sq) * inv_count + n.eps);
  for (int64_t c = threadIdx.x; c < n.group; c += blockDim.x) {
    float y = (x[c] - mean) * inv;
    if (n.w) y *= n.weight_plus_one ? 1.0f + n.w[param + c] : n.w[param + c];
    if (n.b) y += n.b[param + c];
    out[c] = y;
  }
}

}  // namespace

void launch_norm(const NormLaunch& n, cudaStream_t stream) {
  // One block per vector; more vectors than a grid's x dimension do not occur (2^31 - 1).
  norm_kernel<<<static_cast<unsigned>(n.vectors), kNormThreads, 0, stream>>>(n);
  check_launch("norm kernel");
}

}  // namespace tessera::cuda
