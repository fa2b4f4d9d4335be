// ROPE: one thread per element (grid-stride), the arithmetic of rope_math.h.
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"
#include "backends/cuda/ops/rope_math.h"

namespace tessera::cuda {
namespace {

__global__ void rope_kernel(RopeLaunch r) {
  const int64_t width = int64_t{r.n_heads} * r.head_dim, total = r.n_tokens * width;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t t = e / width;
    const int d = static_cast<int>(e % r.head_dim);
    r.out[e] = rope_element(r, r.x + (e - d), d, r.pos[t]);
  }
}

}  // namespace

void launch_rope(const RopeLaunch& r, cudaStream_t stream) {
  const int64_t total = r.n_tokens * r.n_heads * int64_t{r.head_dim};
  if (total == 0) return;
  rope_kernel<<<grid_for(total), kThreads, 0, stream>>>(r);
  check_launch("rope kernel");
}

}  // namespace tessera::cuda
