#include <tessera/kit/op_params.h>

#include <cmath>
#include <string>

#include <tessera/kit/kernel_error.h>
#include <tessera/kit/tensor_check.h>

namespace tessera::kit {
namespace {

constexpr const char* kOp = "rope";

void check_yarn(const tsr_rope_params& p) {
  if (!(p.ext_factor >= 0.0f)) fail(kOp, "ext_factor must be >= 0, got " + std::to_string(p.ext_factor));
  if (p.ext_factor > 0.0f &&
      !(p.theta > 1.0f && p.freq_scale > 0.0f && p.beta_fast > 0.0f && p.beta_slow > 0.0f && p.n_ctx_orig > 0)) {
    fail(kOp, "YaRN needs theta > 1, freq_scale > 0, beta_fast > 0, beta_slow > 0 and n_ctx_orig > 0");
  }
}

// llama3_factor 0 switches the scaling off, so band factors without it are a mistake
// (a caller that forgot the factor), not a request for plain RoPE.
void check_llama3(const tsr_rope_params& p) {
  const float factor = p.llama3_factor, low = p.llama3_low_freq_factor, high = p.llama3_high_freq_factor;
  if (!(factor >= 0.0f)) fail(kOp, "llama3_factor must be >= 0 (0: off), got " + std::to_string(factor));
  if (factor == 0.0f) {
    if (low != 0.0f || high != 0.0f) {
      fail(kOp, "llama3_low_freq_factor " + std::to_string(low) + " and llama3_high_freq_factor " +
                    std::to_string(high) + " need llama3_factor > 0");
    }
    return;
  }
  if (p.ext_factor > 0.0f) fail(kOp, "llama3 scaling and YaRN (ext_factor > 0) cannot be combined");
  if (!(low < high)) {
    fail(kOp, "llama3 scaling needs llama3_low_freq_factor < llama3_high_freq_factor, got " + std::to_string(low) +
                  " and " + std::to_string(high));
  }
  if (p.n_ctx_orig <= 0) fail(kOp, "llama3 scaling needs n_ctx_orig > 0, got " + std::to_string(p.n_ctx_orig));
}

}  // namespace

NormLayout check_norm(const TensorInfo& x, const TensorInfo* w, const TensorInfo* b, const TensorInfo& out,
                      const tsr_norm_params& params, std::string_view op) {
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  if (w) expect_dtype(*w, TSR_DTYPE_F32, op, "w");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  if (params.group < 0) fail(op, "group must be >= 0, got " + std::to_string(params.group));
  const int64_t cols = x.cols();
  if (params.group > 0 && cols % params.group != 0) {
    fail(op, "group " + std::to_string(params.group) + " does not divide the " + std::to_string(cols) +
                 " columns of x");
  }
  NormLayout layout;
  layout.group = params.group > 0 ? params.group : cols;
  // A gain of a whole row's columns gives each group its own (Command R+'s per-head
  // norms, [heads, head_dim]); the bias then follows it.
  if (w && layout.group < cols && w->elements() == cols) layout.param_stride = layout.group;
  const auto expect_params = [&](const TensorInfo& t, const char* role) {
    if (layout.param_stride != 0) {
      if (t.elements() != cols) {
        fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected " + std::to_string(cols) +
                     " elements, as w has (a gain per group)");
      }
    } else if (layout.group < cols && &t == w && w->elements() != layout.group) {
      fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected " + std::to_string(layout.group) +
                   " elements, or " + std::to_string(cols) + " (a gain per group)");
    } else {
      expect_vector(t, layout.group, op, role);
    }
  };
  if (w) expect_params(*w, "w");
  expect_matrix(out, x.rows(), cols, op, "out");
  if (b) {
    expect_dtype(*b, TSR_DTYPE_F32, op, "b");
    expect_params(*b, "b");
  }
  if (!(params.eps >= 0.0f)) fail(op, "eps must be >= 0, got " + std::to_string(params.eps));
  return layout;
}

bool check_binary(const TensorInfo& a, const TensorInfo& b, const TensorInfo& out, std::string_view op) {
  expect_dtype(a, TSR_DTYPE_F32, op, "a");
  expect_dtype(b, TSR_DTYPE_F32, op, "b");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  expect_matrix(out, a.rows(), a.cols(), op, "out");
  const bool same_shape = b.rows() == a.rows() && b.cols() == a.cols();
  const bool broadcast = !same_shape && b.ndim == 1 && b.cols() == a.cols();
  if (!same_shape && !broadcast) {
    fail(op, "b has shape " + shape_label(b) + ", expected " + shape_label(a) + " or [" + std::to_string(a.cols()) +
                 "]");
  }
  return broadcast;
}

void check_clamp_params(const tsr_clamp_params& p) {
  if (!(p.lo <= p.hi)) {
    fail("clamp", "needs lo <= hi, got lo " + std::to_string(p.lo) + " and hi " + std::to_string(p.hi));
  }
}

void check_rope_params(const tsr_rope_params& p) {
  if (p.n_heads <= 0 || p.head_dim <= 0) {
    fail(kOp, "n_heads " + std::to_string(p.n_heads) + " and head_dim " +
                  std::to_string(p.head_dim) + " must be positive");
  }
  if (p.n_rot < 0 || p.n_rot > p.head_dim || p.n_rot % 2 != 0) {
    fail(kOp, "n_rot " + std::to_string(p.n_rot) + " must be even and within head_dim " +
                  std::to_string(p.head_dim));
  }
  if (p.pairing != TSR_ROPE_INTERLEAVED && p.pairing != TSR_ROPE_NEOX) {
    fail(kOp, "unknown pairing " + std::to_string(p.pairing));
  }
  check_yarn(p);
  check_llama3(p);
}

int64_t check_slice_params(const tsr_slice_params& p, int64_t x_cols) {
  if (p.start < 0 || p.count < 0 || p.stride < 0 || p.groups < 1) {
    fail("slice", "needs start, count, stride >= 0 and groups >= 1, got start " + std::to_string(p.start) +
                  ", count " + std::to_string(p.count) + ", stride " + std::to_string(p.stride) + ", groups " +
                  std::to_string(p.groups));
  }
  // start + (groups - 1) * stride + count <= x_cols, arranged so nothing can overflow.
  const int64_t room = x_cols - p.start;
  const bool fits = p.start <= x_cols && p.count <= room &&
                    (p.groups == 1 || p.stride <= (room - p.count) / (p.groups - 1));
  if (!fits) {
    fail("slice", std::to_string(p.groups) + " groups of " + std::to_string(p.count) + " columns from column " +
                  std::to_string(p.start) + " with stride " + std::to_string(p.stride) + " read past the " +
                  std::to_string(x_cols) + " columns of x");
  }
  int64_t out_cols = 0;
  if (__builtin_mul_overflow(p.groups, p.count, &out_cols)) fail("slice", "groups * count overflows");
  return out_cols;
}

void check_get_rows(const TensorInfo& table, const TensorInfo& idx, const TensorInfo& out) {
  const char* op = "get_rows";
  if (table.dtype == TSR_DTYPE_I32) fail(op, "table is i32, expected a float or block dtype");
  if (table.ndim != 2) fail(op, "table has shape " + shape_label(table) + ", expected [R, C]");
  expect_dtype(idx, TSR_DTYPE_I32, op, "idx");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  expect_vector(idx, idx.elements(), op, "idx");
  expect_matrix(out, idx.elements(), table.cols(), op, "out");
}

void check_attention_params(const tsr_attention_params& p) {
  const char* op = "attention";
  if (p.n_heads <= 0 || p.n_kv_heads <= 0 || p.head_dim <= 0 || p.block_size <= 0 || p.n_seqs <= 0 ||
      p.max_blocks_per_seq <= 0) {
    fail(op, "n_heads, n_kv_heads, head_dim, block_size, n_seqs and max_blocks_per_seq must be positive");
  }
  if (p.n_heads % p.n_kv_heads != 0) {
    fail(op, "n_heads " + std::to_string(p.n_heads) + " is not a multiple of n_kv_heads " +
                 std::to_string(p.n_kv_heads));
  }
  if (p.window < 0) fail(op, "window must be >= 0, got " + std::to_string(p.window));
  if (!(p.softcap >= 0.0f)) fail(op, "softcap must be >= 0, got " + std::to_string(p.softcap));
  if (!std::isfinite(p.scale)) fail(op, "scale must be finite");
  if (!(p.alibi_max_bias >= 0.0f) || !std::isfinite(p.alibi_max_bias)) {
    fail(op, "alibi_max_bias must be >= 0 and finite, got " + std::to_string(p.alibi_max_bias));
  }
}

void check_kv_cache(const TensorInfo& cache, std::string_view op, std::string_view role, int64_t block_size,
                    int64_t width) {
  const std::string who(role);
  if (cache.dtype != TSR_DTYPE_F32 && cache.dtype != TSR_DTYPE_F16 && cache.dtype != TSR_DTYPE_Q8_0) {
    fail(op, who + " is " + std::string(dtype_label(cache.dtype)) + ", expected f32, f16 or q8_0");
  }
  if (cache.dtype == TSR_DTYPE_Q8_0 && width % kQ8Block != 0) {
    fail(op, who + " is q8_0 but n_kv_heads * head_dim = " + std::to_string(width) + " is not a multiple of " +
                 std::to_string(kQ8Block));
  }
  if (cache.ndim != 3 || cache.shape[1] != block_size || cache.shape[2] != width) {
    fail(op, who + " has shape " + shape_label(cache) + ", expected [n_blocks, " + std::to_string(block_size) +
                 ", " + std::to_string(width) + "]");
  }
}

}  // namespace tessera::kit
