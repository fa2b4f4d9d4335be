// The block-table check of ATTENTION (see attention_tokens.h).
#include <tessera/kit/attention_tokens.h>

#include <string>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/op_params.h>
#include <tessera/kit/tensor_check.h>

namespace tessera::kit {
namespace {

constexpr const char* kOp = "attention";

}  // namespace

AttentionShape check_attention_shapes(const tsr_attention_params& p, const TensorInfo& q, const TensorInfo& k_cache,
                                      const TensorInfo& v_cache, const TensorInfo& pos, const TensorInfo& seq,
                                      const TensorInfo& block_tables, const TensorInfo& out) {
  check_attention_params(p);
  AttentionShape a;
  a.group = p.n_heads / p.n_kv_heads;
  a.q_width = static_cast<int64_t>(p.n_heads) * p.head_dim;
  a.kv_width = static_cast<int64_t>(p.n_kv_heads) * p.head_dim;
  expect_dtype(q, TSR_DTYPE_F32, kOp, "q");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  expect_dtype(pos, TSR_DTYPE_I32, kOp, "pos");
  expect_dtype(seq, TSR_DTYPE_I32, kOp, "seq");
  expect_dtype(block_tables, TSR_DTYPE_I32, kOp, "block_tables");
  if (q.cols() != a.q_width) {
    fail(kOp, "q has " + std::to_string(q.cols()) + " columns but n_heads * head_dim = " + std::to_string(a.q_width));
  }
  a.n_tokens = q.rows();
  check_kv_cache(k_cache, kOp, "k_cache", p.block_size, a.kv_width);
  check_kv_cache(v_cache, kOp, "v_cache", p.block_size, a.kv_width);
  if (v_cache.dtype != k_cache.dtype || v_cache.shape[0] != k_cache.shape[0]) {
    fail(kOp, "v_cache " + shape_label(v_cache) + " " + std::string(dtype_label(v_cache.dtype)) +
                  " does not match k_cache " + shape_label(k_cache) + " " + std::string(dtype_label(k_cache.dtype)));
  }
  expect_vector(pos, a.n_tokens, kOp, "pos");
  expect_vector(seq, a.n_tokens, kOp, "seq");
  expect_matrix(block_tables, p.n_seqs, p.max_blocks_per_seq, kOp, "block_tables");
  expect_matrix(out, a.n_tokens, a.q_width, kOp, "out");
  return a;
}

void check_attention_tokens(const tsr_attention_params& p, const int32_t* pos, const int32_t* seq,
                            const int32_t* block_tables, int64_t n_tokens, int64_t n_cache_blocks) {
  for (int64_t t = 0; t < n_tokens; ++t) {
    int32_t value = 0;
    const uint32_t fault = attention_token_fault(seq[t], pos[t], p.n_seqs, p.block_size, p.max_blocks_per_seq, value);
    if (fault != 0) throw KernelError(TSR_E_INVALID_ARGUMENT, attention_token_message(fault, t, value, p));
    const int32_t position = pos[t];
    const int32_t* table = block_tables + static_cast<int64_t>(seq[t]) * p.max_blocks_per_seq;
    for (int64_t b = attention_first_key(p.window, position) / p.block_size; b <= position / p.block_size; ++b) {
      if (attention_block_outside(table[b], n_cache_blocks)) {
        fail(kOp, "block table of sequence " + std::to_string(seq[t]) + " names block " + std::to_string(table[b]) +
                      " at index " + std::to_string(b) + " but the cache has " + std::to_string(n_cache_blocks) +
                      " blocks");
      }
    }
  }
}

}  // namespace tessera::kit
