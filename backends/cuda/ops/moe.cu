// The mixture-of-experts kernels: MOE_ROUTE one thread per token (moe_math.h),
// MOE_MATMUL one warp per (token, slot, output row) reading its expert's row through the
// block formulas (block_rows.h), MOE_COMBINE one thread per output element.
#include "backends/cuda/ops/block_rows.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

constexpr int kWarps = 4;  // rows per block

__global__ void moe_route_kernel(const float* logits, float* route, int64_t tokens, int64_t n_experts,
                                 tsr_moe_route_params p) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < tokens; t += int64_t{gridDim.x} * blockDim.x) {
    moe_route_row(logits + t * n_experts, n_experts, p, route + t * 2 * p.k);
  }
}

template <class B>
__global__ void moe_matmul_kernel(MoeMatmulLaunch a) {
  const int64_t item = blockIdx.x * int64_t{kWarps} + threadIdx.x / 32;  // (t * slots + j) * m + row
  if (item >= a.tokens * a.slots * a.m) return;
  const int lane = threadIdx.x % 32;
  const int64_t row = item % a.m, slot = item / a.m, t = slot / a.slots, j = slot % a.slots;
  const float stored = a.route[t * 2 * a.slots + j];
  if (!kit::route_names_expert(stored, a.n_experts)) {  // the same for the whole warp
    if (lane == 0) {
      if (row == 0) report_error(a.errors, kit::kRowIdOutside, slot, static_cast<int32_t>(stored));
      a.out[t * a.slots * a.m + j * a.m + row] = 0.0f;
    }
    return;
  }
  const auto expert = static_cast<int64_t>(stored);
  const uint8_t* w = a.experts + (expert * a.m + row) * a.expert_row_bytes;
  const float* x = a.x + t * (a.per_slot ? a.slots * a.k : a.k) + (a.per_slot ? j * a.k : 0);
  float acc[1] = {0.0f};
  accumulate_row<B>(w, x, a.k, a.k, 1, lane, acc);
  float sum = acc[0];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) a.out[t * a.slots * a.m + j * a.m + row] = sum;
}

__global__ void moe_combine_kernel(const float* y, const float* route, float* out, int64_t tokens, int64_t slots,
                                   int64_t cols) {
  const int64_t total = tokens * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t t = i / cols, c = i % cols;
    const float* w = route + t * 2 * slots + slots;
    float sum = 0.0f;
    for (int64_t j = 0; j < slots; ++j) sum += w[j] * y[t * slots * cols + j * cols + c];
    out[i] = sum;
  }
}

}  // namespace

void launch_moe_route(const float* logits, float* route, int64_t tokens, int64_t n_experts,
                      const tsr_moe_route_params& p, cudaStream_t stream) {
  if (tokens == 0) return;
  moe_route_kernel<<<grid_for(tokens), kThreads, 0, stream>>>(logits, route, tokens, n_experts, p);
  check_launch("moe_route kernel");
}

void launch_moe_matmul(const MoeMatmulLaunch& a, cudaStream_t stream) {
  const int64_t items = a.tokens * a.slots * a.m;
  if (items == 0) return;
  const auto blocks = static_cast<unsigned>((items + kWarps - 1) / kWarps);
  const bool known = with_block_type(a.dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    moe_matmul_kernel<B><<<blocks, kWarps * 32, 0, stream>>>(a);
  });
  if (!known) throw CudaError(TSR_E_INVALID_ARGUMENT, "moe_matmul: no CUDA kernel for dtype " + std::to_string(a.dtype));
  check_launch("moe_matmul kernel");
}

void launch_moe_combine(const float* y, const float* route, float* out, int64_t tokens, int64_t slots, int64_t cols,
                        cudaStream_t stream) {
  if (tokens * cols == 0) return;
  moe_combine_kernel<<<grid_for(tokens * cols), kThreads, 0, stream>>>(y, route, out, tokens, slots, cols);
  check_launch("moe_combine kernel");
}

}  // namespace tessera::cuda
