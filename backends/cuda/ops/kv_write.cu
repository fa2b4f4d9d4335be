// KV_WRITE: f32 and f16 rows one thread per element; q8_0 rows one warp per block of
// 32 (lane j quantises element j after the warp's max|x|), with kit/kv_quant.h's steps.
#include <tessera/kit/kv_quant.h>
#include <tessera/kit/quant_blocks.h>

#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

__global__ void kv_write_plain(bool f16, const float* x, const int32_t* slots, uint8_t* cache, int64_t row_bytes,
                               int64_t n_tokens, int64_t width) {
  const int64_t total = n_tokens * width;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t t = i / width, c = i % width;
    uint8_t* row = cache + slots[t] * row_bytes;
    if (f16) {
      reinterpret_cast<uint16_t*>(row)[c] = kit::f32_to_f16(x[i]);
    } else {
      reinterpret_cast<float*>(row)[c] = x[i];
    }
  }
}

__global__ void kv_write_q8_0(const float* x, const int32_t* slots, uint8_t* cache, int64_t row_bytes,
                              int64_t n_tokens, int64_t width) {
  const int64_t blocks_per_row = width / kit::kQK;
  const int64_t block = blockIdx.x * int64_t{blockDim.x / 32} + threadIdx.x / 32;  // over all tokens
  if (block >= n_tokens * blocks_per_row) return;
  const int lane = threadIdx.x % 32;
  const int64_t t = block / blocks_per_row, b = block % blocks_per_row;
  const float v = x[t * width + b * kit::kQK + lane];
  float amax = fabsf(v);
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const uint16_t d_bits = kit::kv_q8_0_scale_bits(amax);
  auto* dst = reinterpret_cast<kit::BlockQ8_0*>(cache + slots[t] * row_bytes) + b;
  if (lane == 0) dst->d = d_bits;
  dst->q[lane] = kit::kv_q8_0_code(v, kit::kv_q8_0_inverse(d_bits));
}

}  // namespace

void launch_kv_write(tsr_dtype dtype, const float* x, const int32_t* slots, uint8_t* cache, int64_t row_bytes,
                     int64_t n_tokens, int64_t width, cudaStream_t stream) {
  if (n_tokens == 0 || width == 0) return;
  if (dtype == TSR_DTYPE_Q8_0) {
    const int64_t blocks = n_tokens * (width / kit::kQK);
    constexpr int kWarps = kThreads / 32;
    kv_write_q8_0<<<static_cast<unsigned>((blocks + kWarps - 1) / kWarps), kThreads, 0, stream>>>(
        x, slots, cache, row_bytes, n_tokens, width);
  } else {
    kv_write_plain<<<grid_for(n_tokens * width), kThreads, 0, stream>>>(dtype == TSR_DTYPE_F16, x, slots, cache,
                                                                        row_bytes, n_tokens, width);
  }
  check_launch("kv_write kernel");
}

}  // namespace tessera::cuda
