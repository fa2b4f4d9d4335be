// ATTENTION argument checks (including the block tables) and the reference kernel.
#include "backends/cpu/ops/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/op_params.h>

#include <tessera/kit/half.h>
#include <tessera/kit/quant_blocks.h>

namespace tessera::cpu {
namespace {

constexpr const char* kOp = "attention";



// Element d of a cache row, as f32. A q8_0 row is kv_width / 32 blocks; a head may start
// inside a block (head_dim 8: four heads share one scale).
float cache_elem(const TensorView& cache, int64_t row, int64_t d) {
  if (cache.dtype == TSR_DTYPE_F16) return f16_to_f32(cache.row<const uint16_t>(row)[d]);
  if (cache.dtype == TSR_DTYPE_Q8_0) {
    const BlockQ8_0& block = cache.row<const BlockQ8_0>(row)[d / kQ8BlockElems];
    return f16_to_f32(block.d) * static_cast<float>(block.q[d % kQ8BlockElems]);
  }
  return cache.row<const float>(row)[d];
}

}  // namespace

double alibi_slope(const tsr_attention_params& p, int head) {
  return kit::alibi_slope(p.alibi_max_bias, p.n_heads, head);
}

int64_t AttentionArgs::first_key(int64_t t) const {
  return kit::attention_first_key(p.window, pos.as<const int32_t>()[t]);
}

int64_t AttentionArgs::cache_row(int64_t t, int64_t position) const {
  const int32_t* table = block_tables.row<const int32_t>(seq.as<const int32_t>()[t]);
  return static_cast<int64_t>(table[position / p.block_size]) * p.block_size +
         position % p.block_size;
}

AttentionArgs check_attention(const tsr_op_call& call) {
  expect_input_count(call, 6, 6, kOp);
  AttentionArgs a;
  a.p = params_of<tsr_attention_params>(call, kOp);
  kit::check_attention_params(a.p);
  a.q = input(call, 0, kOp, "q");
  a.k_cache = input(call, 1, kOp, "k_cache");
  a.v_cache = input(call, 2, kOp, "v_cache");
  a.pos = input(call, 3, kOp, "pos");
  a.seq = input(call, 4, kOp, "seq");
  a.block_tables = input(call, 5, kOp, "block_tables");
  a.out = output(call, kOp);
  const kit::AttentionShape shape =
      kit::check_attention_shapes(a.p, a.q, a.k_cache, a.v_cache, a.pos, a.seq, a.block_tables, a.out);
  a.n_tokens = shape.n_tokens;
  a.q_width = shape.q_width;
  a.kv_width = shape.kv_width;
  a.group = shape.group;
  kit::check_attention_tokens(a.p, a.pos.as<const int32_t>(), a.seq.as<const int32_t>(),
                              a.block_tables.as<const int32_t>(), a.n_tokens, a.k_cache.shape[0]);
  return a;
}

void attention_ref(CpuDevice&, const tsr_op_call& call) {
  const AttentionArgs a = check_attention(call);
  const int hd = a.p.head_dim;
  std::vector<double> scores;
  std::vector<double> head_out(static_cast<size_t>(hd));
  for (int64_t t = 0; t < a.n_tokens; ++t) {
    const int64_t first = a.first_key(t);
    const int64_t last = a.pos.as<const int32_t>()[t];
    scores.assign(static_cast<size_t>(last - first + 1), 0.0);
    for (int h = 0; h < a.p.n_heads; ++h) {
      const float* q = a.q.row<const float>(t) + static_cast<int64_t>(h) * hd;  // [head_dim]
      const int64_t kv_col = static_cast<int64_t>(h / a.group) * hd;  // KV head's first column
      const double slope = alibi_slope(a.p, h);
      // Pass 1: scores and their maximum.
      double max_score = -INFINITY;
      for (int64_t p = first; p <= last; ++p) {
        const int64_t row = a.cache_row(t, p);
        double dot = 0.0;
        for (int d = 0; d < hd; ++d) dot += static_cast<double>(q[d]) * cache_elem(a.k_cache, row, kv_col + d);
        double s = dot * a.p.scale;
        if (a.p.softcap > 0.0f) s = a.p.softcap * std::tanh(s / a.p.softcap);
        s += slope * static_cast<double>(p - last);  // ALiBi: 0 for the token's own key
        scores[p - first] = s;
        max_score = std::max(max_score, s);
      }
      // Pass 2: softmax weights and the weighted sum of values.
      double total = 0.0;
      std::fill(head_out.begin(), head_out.end(), 0.0);
      for (int64_t p = first; p <= last; ++p) {
        const double weight = std::exp(scores[p - first] - max_score);
        total += weight;
        const int64_t row = a.cache_row(t, p);
        for (int d = 0; d < hd; ++d) head_out[d] += weight * cache_elem(a.v_cache, row, kv_col + d);
      }
      float* out = a.out.row<float>(t) + static_cast<int64_t>(h) * hd;
      for (int d = 0; d < hd; ++d) out[d] = static_cast<float>(head_out[d] / total);
    }
  }
}

}  // namespace tessera::cpu
