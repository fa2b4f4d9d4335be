// The op-level dtype and shape checks (see op_shapes.h).
#include <tessera/kit/op_shapes.h>

#include <string>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/op_params.h>
#include <tessera/kit/tensor_check.h>

namespace tessera::kit {

void check_unary(const TensorInfo& x, const TensorInfo& out, std::string_view op) {
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  expect_matrix(out, x.rows(), x.cols(), op, "out");
}

void check_swiglu(const TensorInfo& gate, const TensorInfo& up, const TensorInfo& out) {
  constexpr const char* op = "swiglu";
  expect_dtype(gate, TSR_DTYPE_F32, op, "gate");
  expect_dtype(up, TSR_DTYPE_F32, op, "up");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  expect_matrix(up, gate.rows(), gate.cols(), op, "up");
  expect_matrix(out, gate.rows(), gate.cols(), op, "out");
}

bool check_binary_op(const TensorInfo& a, const TensorInfo& b, const TensorInfo& out, std::string_view op, bool gated) {
  if (!gated) return check_binary(a, b, out, op);
  check_swiglu(a, b, out);
  return false;
}

MatmulShape check_matmul(const TensorInfo& x, const TensorInfo& w, const TensorInfo& out) {
  constexpr const char* op = "matmul";
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  if (w.dtype == TSR_DTYPE_I32) fail(op, "w is i32, expected a float or block dtype");
  if (w.ndim != 2) fail(op, "w has shape " + shape_label(w) + ", expected [M, K]");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  const MatmulShape s{x.rows(), x.cols(), w.shape[0]};
  if (w.cols() != s.k) fail(op, "x has " + std::to_string(s.k) + " columns but w has " + std::to_string(w.cols()));
  expect_matrix(out, s.n, s.m, op, "out");
  return s;
}

int64_t check_rope(const TensorInfo& x, const TensorInfo& pos, const TensorInfo& out, const tsr_rope_params& p) {
  constexpr const char* op = "rope";
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  expect_dtype(pos, TSR_DTYPE_I32, op, "pos");
  expect_dtype(out, TSR_DTYPE_F32, op, "out");
  check_rope_params(p);
  const int64_t width = static_cast<int64_t>(p.n_heads) * p.head_dim;
  if (x.cols() != width) {
    fail(op, "x has " + std::to_string(x.cols()) + " columns but n_heads * head_dim = " + std::to_string(width));
  }
  expect_vector(pos, x.rows(), op, "pos");
  expect_matrix(out, x.rows(), width, op, "out");
  return x.rows();
}

void check_rope_factors(const TensorInfo& factors, const tsr_rope_params& p) {
  expect_dtype(factors, TSR_DTYPE_F32, "rope", "freq_factors");
  expect_vector(factors, p.n_rot / 2, "rope", "freq_factors");
}

void check_slice(const TensorInfo& x, const TensorInfo& out, const tsr_slice_params& p) {
  expect_dtype(x, TSR_DTYPE_F32, "slice", "x");
  expect_dtype(out, TSR_DTYPE_F32, "slice", "out");
  const int64_t out_cols = check_slice_params(p, x.cols());
  expect_matrix(out, x.rows(), out_cols, "slice", "out");
}

int64_t check_kv_write(const TensorInfo& x, const TensorInfo& slot, const TensorInfo& cache,
                       const tsr_kv_write_params& p) {
  constexpr const char* op = "kv_write";
  expect_dtype(x, TSR_DTYPE_F32, op, "x");
  expect_dtype(slot, TSR_DTYPE_I32, op, "slot");
  if (p.n_kv_heads <= 0 || p.head_dim <= 0 || p.block_size <= 0) {
    fail(op, "n_kv_heads, head_dim and block_size must be positive");
  }
  const int64_t width = static_cast<int64_t>(p.n_kv_heads) * p.head_dim;
  check_kv_cache(cache, op, "cache", p.block_size, width);
  if (x.cols() != width) {
    fail(op, "x has " + std::to_string(x.cols()) + " columns but n_kv_heads * head_dim = " + std::to_string(width));
  }
  expect_vector(slot, x.rows(), op, "slot");
  return x.rows();
}

void check_row_ids(const int32_t* ids, int64_t n, int64_t limit, std::string_view op, std::string_view name,
                   std::string_view what) {
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= limit) {
      throw KernelError(TSR_E_INVALID_ARGUMENT, row_id_message(op, name, what, i, ids[i], limit));
    }
  }
}

}  // namespace tessera::kit
