#include <tessera/kit/moe_check.h>

#include <cmath>
#include <string>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/tensor_check.h>

namespace tessera::kit {
namespace {

std::string n(int64_t v) { return std::to_string(v); }

// A route [T, 2k] f32 of `op`; returns k.
int64_t check_route(const TensorInfo& route, int64_t tokens, std::string_view op) {
  expect_dtype(route, TSR_DTYPE_F32, op, "route");
  if (route.ndim != 2 || route.cols() < 2 || route.cols() % 2 != 0) {
    fail(op, "route has shape " + shape_label(route) + ", expected [T, 2k]: k experts and k weights per token");
  }
  if (route.rows() != tokens) {
    fail(op, "route has " + n(route.rows()) + " rows but the tokens are " + n(tokens));
  }
  return route.cols() / 2;
}

}  // namespace

int64_t check_moe_route(const TensorInfo& logits, const TensorInfo& out, const tsr_moe_route_params& p) {
  constexpr const char* kOp = "moe_route";
  expect_dtype(logits, TSR_DTYPE_F32, kOp, "logits");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  const int64_t experts = logits.cols();
  if (p.k < 1 || p.k > experts) fail(kOp, "k is " + n(p.k) + ", expected 1 .. " + n(experts) + " (the experts)");
  if (p.gating != TSR_MOE_SOFTMAX && p.gating != TSR_MOE_SIGMOID) fail(kOp, "gating " + n(p.gating) + " is unknown");
  if (!std::isfinite(p.scale)) fail(kOp, "scale is " + std::to_string(p.scale) + ", expected a finite number");
  expect_matrix(out, logits.rows(), 2 * int64_t{p.k}, kOp, "out");
  return experts;
}

MoeMatmulSizes check_moe_matmul(const TensorInfo& x, const TensorInfo& experts, const TensorInfo& route,
                                const TensorInfo& out) {
  constexpr const char* kOp = "moe_matmul";
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  if (experts.dtype == TSR_DTYPE_I32) fail(kOp, "experts is i32, expected a float or block dtype");
  if (experts.ndim != 3) fail(kOp, "experts has shape " + shape_label(experts) + ", expected [E, M, K]");
  MoeMatmulSizes s;
  s.tokens = x.rows();
  s.slots = check_route(route, s.tokens, kOp);
  s.experts = experts.shape[0];
  s.m = experts.shape[1];
  s.k = experts.shape[2];
  if (x.cols() == s.slots * s.k && s.slots > 1) {
    s.per_slot = true;
  } else if (x.cols() != s.k) {
    fail(kOp, "x has " + n(x.cols()) + " columns, expected K = " + n(s.k) + " or k * K = " + n(s.slots * s.k));
  }
  expect_matrix(out, s.tokens, s.slots * s.m, kOp, "out");
  return s;
}

int64_t check_moe_combine(const TensorInfo& y, const TensorInfo& route, const TensorInfo& out) {
  constexpr const char* kOp = "moe_combine";
  expect_dtype(y, TSR_DTYPE_F32, kOp, "y");
  expect_dtype(out, TSR_DTYPE_F32, kOp, "out");
  const int64_t slots = check_route(route, y.rows(), kOp);
  if (y.cols() % slots != 0) fail(kOp, "y has " + n(y.cols()) + " columns, not k = " + n(slots) + " equal parts");
  const int64_t cols = y.cols() / slots;
  expect_matrix(out, y.rows(), cols, kOp, "out");
  return cols;
}

int64_t route_expert(float stored, int64_t n_experts, const char* op) {
  if (!route_names_expert(stored, n_experts)) {
    fail(op, "route names expert " + std::to_string(stored) + ", expected a whole number 0 .. " + n(n_experts - 1));
  }
  return static_cast<int64_t>(stored);
}

}  // namespace tessera::kit
