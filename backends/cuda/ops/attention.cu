// ATTENTION: one warp per (token, query head, split of its keys). Lane l holds
// dimensions l, l + 32, ... of q and of the output (head_dim <= 256: 8 each); each key's
// dot product is summed across the warp, then folded into the online softmax
// (attention_math.h). Keys are read through the token's block table. With one split the
// warp writes the output; with more (long contexts, few tokens: flash decoding) each
// writes its state and a second kernel merges a head's splits. A token whose seq,
// position or block-table entry is bad (kit/device_errors.h) is reported by its warps and
// reads nothing; its output is zero.
#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/device_errors.h>

#include "backends/cuda/ops/attention_math.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/launch_util.cuh"

namespace tessera::cuda {
namespace {

constexpr int kWarps = 4;  // (token, head) pairs per block
constexpr int kPerLane = kAttentionMaxHeadDim / 32;

__global__ void attention_kernel(AttentionLaunch a) {
  const tsr_attention_params& p = a.p;
  const int64_t item = blockIdx.x * int64_t{kWarps} + threadIdx.x / 32;  // pair * splits + split
  if (item >= a.n_tokens * p.n_heads * a.splits) return;
  const int lane = threadIdx.x % 32;
  const int64_t pair = item / a.splits;
  const int split = static_cast<int>(item % a.splits);
  const int64_t t = pair / p.n_heads;
  const int h = static_cast<int>(pair % p.n_heads);
  const int hd = p.head_dim;
  const int64_t q_width = int64_t{p.n_heads} * hd;
  const int64_t kv_col = int64_t{h / (p.n_heads / p.n_kv_heads)} * hd;  // the KV head's first column
  const float* q = a.q + t * q_width + int64_t{h} * hd;
  float qv[kPerLane], acc[kPerLane];
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int d = lane + 32 * j;
    qv[j] = d < hd ? q[d] : 0.0f;
    acc[j] = 0.0f;
  }
  int32_t bad = 0;
  uint32_t fault = kit::attention_token_fault(a.seq[t], a.pos[t], p.n_seqs, p.block_size, p.max_blocks_per_seq, bad);
  if (fault != 0 && lane == 0) report_error(a.errors, fault, t, bad);
  const int64_t pos = fault != 0 ? -1 : a.pos[t];  // a bad token reads no key
  const int64_t first = kit::attention_first_key(p.window, pos);
  const int64_t per_split = (pos - first + a.splits) / a.splits;  // ceil(keys / splits)
  const int64_t begin = first + split * per_split;
  const int64_t end = begin + per_split < pos + 1 ? begin + per_split : pos + 1;
  const int32_t* table = a.block_tables + (fault != 0 ? 0 : int64_t{a.seq[t]} * p.max_blocks_per_seq);
  const float slope = static_cast<float>(kit::alibi_slope(p.alibi_max_bias, p.n_heads, h));
  OnlineSoftmax softmax;
  for (int64_t key = begin; key < end; ++key) {
    const int32_t block = table[key / p.block_size];  // the same for the whole warp
    if (kit::attention_block_outside(block, a.n_cache_blocks)) {
      if (lane == 0) report_error(a.errors, kit::kAttentionBlockOutside, t, block);
      fault = kit::kAttentionBlockOutside;
      break;
    }
    const int64_t row = int64_t{block} * p.block_size + key % p.block_size;
    const uint8_t* k_row = a.k_cache + row * a.cache_row_bytes;
    float dot = 0.0f;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const int d = lane + 32 * j;
      if (d < hd) dot += qv[j] * kv_value(a.cache_dtype, k_row, kv_col + d);
    }
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
    float weight;
    const float rescale = softmax.add(attention_score(dot, p.scale, p.softcap, slope, key, pos), weight);
    const uint8_t* v_row = a.v_cache + row * a.cache_row_bytes;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const int d = lane + 32 * j;
      if (d < hd) acc[j] = acc[j] * rescale + weight * kv_value(a.cache_dtype, v_row, kv_col + d);
    }
  }
  if (fault != 0) {  // zero output, or a split that weighs nothing
    softmax = OnlineSoftmax{};
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) acc[j] = 0.0f;
  }
  if (a.splits == 1) {
    float* out = a.out + t * q_width + int64_t{h} * hd;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const int d = lane + 32 * j;
      if (d < hd) out[d] = fault != 0 ? 0.0f : acc[j] / softmax.sum;
    }
    return;
  }
  float* state = a.partials + item * (hd + 2);  // max, sum, acc[head_dim]
  if (lane == 0) {
    state[0] = softmax.max;
    state[1] = softmax.sum;
  }
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int d = lane + 32 * j;
    if (d < hd) state[2 + d] = acc[j];
  }
}

// One warp per (token, head): the splits' states merged (split_factor).
__global__ void attention_merge_kernel(AttentionLaunch a) {
  const int64_t pair = blockIdx.x * int64_t{kWarps} + threadIdx.x / 32;
  if (pair >= a.n_tokens * a.p.n_heads) return;
  const int lane = threadIdx.x % 32;
  const int hd = a.p.head_dim;
  const float* states = a.partials + pair * a.splits * (hd + 2);
  float largest = -INFINITY;
  for (int s = 0; s < a.splits; ++s) largest = fmaxf(largest, states[s * (hd + 2)]);
  float total = 0.0f;
  for (int s = 0; s < a.splits; ++s) total += states[s * (hd + 2) + 1] * split_factor(states[s * (hd + 2)], largest);
  const int64_t t = pair / a.p.n_heads, h = pair % a.p.n_heads;
  float* out = a.out + t * int64_t{a.p.n_heads} * hd + h * hd;
  for (int d = lane; d < hd; d += 32) {
    float sum = 0.0f;
    for (int s = 0; s < a.splits; ++s) sum += states[s * (hd + 2) + 2 + d] * split_factor(states[s * (hd + 2)], largest);
    out[d] = total > 0.0f ? sum / total : 0.0f;  // 0: every split of a bad token is empty
  }
}

}  // namespace

void launch_attention(const AttentionLaunch& a, cudaStream_t stream) {
  const int64_t pairs = a.n_tokens * a.p.n_heads;
  if (pairs == 0) return;
  const int64_t items = pairs * a.splits;
  attention_kernel<<<static_cast<unsigned>((items + kWarps - 1) / kWarps), kWarps * 32, 0, stream>>>(a);
  check_launch("attention kernel");
  if (a.splits > 1) {
    attention_merge_kernel<<<static_cast<unsigned>((pairs + kWarps - 1) / kWarps), kWarps * 32, 0, stream>>>(a);
    check_launch("attention merge kernel");
  }
}

}  // namespace tessera::cuda
