// The CUDA kernels' launchers, called by the host-side op bodies (ops/*.cpp) after the
// argument checks: plain pointers and sizes, every launch on `stream`. Each throws
// CudaError when the launch fails.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include <tessera/plugin_abi.h>

#include "backends/cuda/error_sink.h"

#include "backends/cuda/ops/elementwise_math.h"
#include "backends/cuda/ops/moe_math.h"
#include "backends/cuda/ops/rope_math.h"

namespace tessera::cuda {

// out[i] = op(a[i], b[i]), or b[i % cols] when `broadcast` (b a row of `cols`).
void launch_binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n, int64_t cols, bool broadcast,
                   cudaStream_t stream);
void launch_unary(UnaryOp op, const float* x, float* out, int64_t n, float p0, float p1, cudaStream_t stream);

// out [n, cols] f32 = rows idx[i] of `table` (n_rows rows of dtype, row_bytes each); an
// index outside the table is reported (kRowIdOutside) and its row of out left zero.
void launch_get_rows(tsr_dtype dtype, const void* table, int64_t row_bytes, int64_t n_rows, const int32_t* idx,
                     float* out, int64_t n, int64_t cols, const ErrorSink& errors, cudaStream_t stream);

void launch_rope(const RopeLaunch& r, cudaStream_t stream);

// Norms over `vectors` vectors of `group` values (x and out row-major, vector v at
// v * group); vector v takes the gain at (v % groups_per_row) * param_stride.
struct NormLaunch {
  const float* x;
  const float* w;  // null: no gain
  const float* b;  // null: no bias (layer norm only)
  float* out;
  int64_t vectors, group, groups_per_row, param_stride;
  float eps;
  bool weight_plus_one;
  bool layer;  // false: RMS norm
};
void launch_norm(const NormLaunch& n, cudaStream_t stream);

// KV_WRITE: row slots[t] of `cache` (n_slots rows of row_bytes; f32, f16 or q8_0) = x[t]
// (width f32); a slot outside the cache is reported (kRowIdOutside) and not written.
struct KvWriteLaunch {
  tsr_dtype dtype;
  const float* x;
  const int32_t* slots;
  uint8_t* cache;
  int64_t row_bytes, n_slots, n_tokens, width;
  ErrorSink errors;
};
void launch_kv_write(const KvWriteLaunch& k, cudaStream_t stream);

// SLICE: out[n, g * count + j] = x[n, start + g * stride + j] for rows n < rows.
void launch_slice(const float* x, float* out, int64_t rows, int64_t x_cols, int64_t start, int64_t count,
                  int64_t stride, int64_t groups, cudaStream_t stream);

// ATTENTION over the paged cache, one warp per (token, query head), keys folded in
// one at a time (OnlineSoftmax). The kernel checks each token's seq, position and the
// block-table entries it reads (kit::AttentionFault); a bad token's output is zero.
inline constexpr int32_t kAttentionMaxHeadDim = 256;
struct AttentionLaunch {
  const float* q;
  const uint8_t* k_cache;
  const uint8_t* v_cache;
  const int32_t* pos;
  const int32_t* seq;
  const int32_t* block_tables;
  float* out;
  tsr_dtype cache_dtype;
  int64_t cache_row_bytes;
  int64_t n_tokens;
  int64_t n_cache_blocks;
  tsr_attention_params p;
  ErrorSink errors;
  // Split-KV: each (token, head)'s keys in `splits` parts, each part's state
  // (max, sum, acc[head_dim]) to `partials`, then merged. 1: one pass, no partials.
  int32_t splits = 1;
  float* partials = nullptr;  // [n_tokens * n_heads * splits, head_dim + 2]
};
void launch_attention(const AttentionLaunch& a, cudaStream_t stream);

// MOE_ROUTE: one thread per token (moe_math.h). logits [T, E], route [T, 2k].
void launch_moe_route(const float* logits, float* route, int64_t tokens, int64_t n_experts,
                      const tsr_moe_route_params& p, cudaStream_t stream);
// MOE_MATMUL: out[t, j * M + m] = sum_c x_tj[c] * experts[e, m, c], e = route[t, j]; one
// warp per (token, slot, row), the expert decoded as in the GEMV. A route naming no
// expert is reported (kRowIdOutside, index t * k + j) and its output left zero.
struct MoeMatmulLaunch {
  const float* x;
  const uint8_t* experts;
  const float* route;
  float* out;
  tsr_dtype dtype;
  int64_t expert_row_bytes;
  int64_t tokens, slots, m, k, n_experts;
  bool per_slot;  // x has slots * k columns: slot j reads its own
  ErrorSink errors;
};
void launch_moe_matmul(const MoeMatmulLaunch& a, cudaStream_t stream);
// MOE_COMBINE: out[t, c] = sum_j route[t, k + j] * y[t, j * C + c].
void launch_moe_combine(const float* y, const float* route, float* out, int64_t tokens, int64_t slots, int64_t cols,
                        cudaStream_t stream);

// out[r, c] = sum_k x[r, k] * w[c, k] for r < n_rows (at most kGemvMaxRows), c < m:
// one warp per weight row, the weight dequantised in registers.
inline constexpr int64_t kGemvMaxRows = 8;
void launch_gemv(tsr_dtype w_dtype, const void* w, int64_t w_row_bytes, const float* x, float* out, int64_t n_rows,
                 int64_t k, int64_t m, cudaStream_t stream);
// `n` values f32 -> f16 (to_bf16 false) or bf16, for cuBLAS's inputs.
void launch_to_half(const float* x, uint16_t* out, int64_t n, bool to_bf16, cudaStream_t stream);
// Rows [0, rows) of a weight of a block format (or f32/f16/bf16) to f16.
void launch_dequantize_f16(tsr_dtype dtype, const void* w, int64_t row_bytes, uint16_t* out, int64_t rows,
                           int64_t cols, cudaStream_t stream);

}  // namespace tessera::cuda
