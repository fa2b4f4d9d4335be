// KV_WRITE: f32 and f16 rows one thread per element; q8_0 rows one warp per block of
// 32 (lane j quantises element j after the warp's max|x|), with kit/kv_quant.h's steps.
// A slot outside the cache is reported by its token's first thread and nothing written.
#include <tessera/kit/kv_quant.h>
#include <tessera/kit/quant_blocks.h>

#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

// Whether token t's slot is in the cache; the first caller of a token (first) reports it if not.
__device__ bool slot_in_cache(const KvWriteLaunch& k, int64_t t, bool first) {
  const int32_t s = k.slots[t];
  if (s >= 0 && s < k.n_slots) return true;
  if (first) report_error(k.errors, kit::kRowIdOutside, t, s);
  return false;
}

__global__ void kv_write_plain(KvWriteLaunch k) {
  const bool f16 = k.dtype == TSR_DTYPE_F16;
  const int64_t total = k.n_tokens * k.width;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t t = i / k.width, c = i % k.width;
    if (!slot_in_cache(k, t, c == 0)) continue;
    uint8_t* row = k.cache + k.slots[t] * k.row_bytes;
    if (f16) {
      reinterpret_cast<uint16_t*>(row)[c] = kit::f32_to_f16(k.x[i]);
    } else {
      reinterpret_cast<float*>(row)[c] = k.x[i];
    }
  }
}

__global__ void kv_write_q8_0(KvWriteLaunch k) {
  const int64_t blocks_per_row = k.width / kit::kQK;
  const int64_t block = blockIdx.x * int64_t{blockDim.x / 32} + threadIdx.x / 32;  // over all tokens
  if (block >= k.n_tokens * blocks_per_row) return;
  const int lane = threadIdx.x % 32;
  const int64_t t = block / blocks_per_row, b = block % blocks_per_row;
  if (!slot_in_cache(k, t, b == 0 && lane == 0)) return;  // the same for the whole warp
  const float v = k.x[t * k.width + b * kit::kQK + lane];
  float amax = fabsf(v);
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const uint16_t d_bits = kit::kv_q8_0_scale_bits(amax);
  auto* dst = reinterpret_cast<kit::BlockQ8_0*>(k.cache + k.slots[t] * k.row_bytes) + b;
  if (lane == 0) dst->d = d_bits;
  dst->q[lane] = kit::kv_q8_0_code(v, kit::kv_q8_0_inverse(d_bits));
}

}  // namespace

void launch_kv_write(const KvWriteLaunch& k, cudaStream_t stream) {
  if (k.n_tokens == 0 || k.width == 0) return;
  if (k.dtype == TSR_DTYPE_Q8_0) {
    const int64_t blocks = k.n_tokens * (k.width / kit::kQK);
    constexpr int kWarps = kThreads / 32;
    kv_write_q8_0<<<static_cast<unsigned>((blocks + kWarps - 1) / kWarps), kThreads, 0, stream>>>(k);
  } else {
    kv_write_plain<<<grid_for(k.n_tokens * k.width), kThreads, 0, stream>>>(k);
  }
  check_launch("kv_write kernel");
}

}  // namespace tessera::cuda
