#include "backends/cpu/ops/moe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/moe_check.h>

#include "backends/cpu/ops/matmul.h"

namespace tessera::cpu {
namespace {

constexpr const char* kMatmul = "moe_matmul";

struct MoeMatmulCall {
  TensorView x, experts, route, out;
  kit::MoeMatmulSizes s;
};

MoeMatmulCall check_moe_matmul_call(const tsr_op_call& call) {
  expect_input_count(call, 3, 3, kMatmul);
  MoeMatmulCall c;
  c.x = input(call, 0, kMatmul, "x");
  c.experts = input(call, 1, kMatmul, "experts");
  c.route = input(call, 2, kMatmul, "route");
  c.out = output(call, kMatmul);
  c.s = kit::check_moe_matmul(c.x, c.experts, c.route, c.out);
  return c;
}

// Slot j of token t: its input row (k columns of x) and its expert.
const float* slot_input(const MoeMatmulCall& c, int64_t t, int64_t j) {
  const float* row = c.x.row<const float>(t);
  return c.s.per_slot ? row + j * c.s.k : row;
}
int64_t slot_expert(const MoeMatmulCall& c, int64_t t, int64_t j) {
  return kit::route_expert(c.route.row<const float>(t)[j], c.s.experts, kMatmul);
}

// Expert e's [M, K] matrix as a view of the experts tensor.
TensorView expert_view(const MoeMatmulCall& c, int64_t e) {
  TensorView w = c.experts;
  w.ndim = 2;
  w.shape[0] = c.s.m;
  w.shape[1] = c.s.k;
  w.shape[2] = w.shape[3] = 1;
  w.data = c.experts.data + e * c.s.m * w.row_bytes();
  return w;
}

TensorView f32_matrix(float* data, int64_t rows, int64_t cols) {
  TensorView v;
  v.dtype = TSR_DTYPE_F32;
  v.ndim = 2;
  v.shape[0] = rows;
  v.shape[1] = cols;
  v.data = reinterpret_cast<std::byte*>(data);
  return v;
}

}  // namespace

void moe_route_ref(CpuDevice&, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_route";
  expect_input_count(call, 1, 1, kOp);
  const TensorView logits = input(call, 0, kOp, "logits");
  const TensorView out = output(call, kOp);
  const auto& p = params_of<tsr_moe_route_params>(call, kOp);
  const int64_t experts = kit::check_moe_route(logits, out, p);
  std::vector<float> prob(static_cast<size_t>(experts));
  std::vector<int64_t> order(static_cast<size_t>(experts));
  for (int64_t t = 0; t < logits.rows(); ++t) {
    const float* l = logits.row<const float>(t);
    if (p.gating == TSR_MOE_SOFTMAX) {
      const float top = *std::max_element(l, l + experts);
      double sum = 0.0;
      for (int64_t e = 0; e < experts; ++e) sum += prob[e] = std::exp(l[e] - top);
      for (float& v : prob) v = static_cast<float>(v / sum);
    } else {
      for (int64_t e = 0; e < experts; ++e) prob[e] = 1.0f / (1.0f + std::exp(-l[e]));
    }
    // Both gatings keep the logits' order; ranking by the logits keeps ties exact. A NaN
    // ranks last, so that the order stays a strict weak one.
    const auto score = [l](int64_t e) { return std::isnan(l[e]) ? -std::numeric_limits<float>::infinity() : l[e]; };
    std::iota(order.begin(), order.end(), int64_t{0});
    std::partial_sort(order.begin(), order.begin() + p.k, order.end(), [&score](int64_t a, int64_t b) {
      return score(a) > score(b) || (score(a) == score(b) && a < b);
    });
    double chosen = 0.0;
    for (int32_t j = 0; j < p.k; ++j) chosen += prob[order[j]];
    const double norm = p.normalize && chosen > 0 ? 1.0 / chosen : 1.0;
    float* route = out.row<float>(t);
    for (int32_t j = 0; j < p.k; ++j) {
      route[j] = static_cast<float>(order[j]);
      route[p.k + j] = static_cast<float>(prob[order[j]] * norm * p.scale);
    }
  }
}

void moe_matmul_ref(CpuDevice&, const tsr_op_call& call) {
  const MoeMatmulCall c = check_moe_matmul_call(call);
  std::vector<float> w_row(static_cast<size_t>(c.s.k));
  for (int64_t t = 0; t < c.s.tokens; ++t) {
    for (int64_t j = 0; j < c.s.slots; ++j) {
      const TensorView w = expert_view(c, slot_expert(c, t, j));
      const float* x = slot_input(c, t, j);
      float* out = c.out.row<float>(t) + j * c.s.m;
      for (int64_t m = 0; m < c.s.m; ++m) {
        kit::dequantize_row(w.dtype, w.row<const std::byte>(m), w_row.data(), c.s.k);
        double sum = 0.0;
        for (int64_t i = 0; i < c.s.k; ++i) sum += static_cast<double>(x[i]) * w_row[i];
        out[m] = static_cast<float>(sum);
      }
    }
  }
}

void moe_matmul_fast(CpuDevice& device, const tsr_op_call& call) {
  const MoeMatmulCall c = check_moe_matmul_call(call);
  // The slots (t * k + j) of each expert, in token order.
  std::vector<std::vector<int64_t>> slots(static_cast<size_t>(c.s.experts));
  for (int64_t t = 0; t < c.s.tokens; ++t) {
    for (int64_t j = 0; j < c.s.slots; ++j) slots[slot_expert(c, t, j)].push_back(t * c.s.slots + j);
  }
  std::vector<float> x, y;
  for (int64_t e = 0; e < c.s.experts; ++e) {
    const std::vector<int64_t>& mine = slots[e];
    if (mine.empty()) continue;
    const auto n = static_cast<int64_t>(mine.size());
    x.resize(static_cast<size_t>(n * c.s.k));
    y.resize(static_cast<size_t>(n * c.s.m));
    for (int64_t r = 0; r < n; ++r) {
      const float* src = slot_input(c, mine[r] / c.s.slots, mine[r] % c.s.slots);
      std::copy(src, src + c.s.k, x.begin() + r * c.s.k);
    }
    MatmulArgs a;
    a.x = f32_matrix(x.data(), n, c.s.k);
    a.w = expert_view(c, e);
    a.out = f32_matrix(y.data(), n, c.s.m);
    a.n = n;
    a.k = c.s.k;
    a.m = c.s.m;
    matmul_checked(device, a);
    for (int64_t r = 0; r < n; ++r) {
      float* dst = c.out.row<float>(mine[r] / c.s.slots) + (mine[r] % c.s.slots) * c.s.m;
      std::copy(y.begin() + r * c.s.m, y.begin() + (r + 1) * c.s.m, dst);
    }
  }
}

void moe_combine_ref(CpuDevice&, const tsr_op_call& call) {
  constexpr const char* kOp = "moe_combine";
  expect_input_count(call, 2, 2, kOp);
  const TensorView y = input(call, 0, kOp, "y");
  const TensorView route = input(call, 1, kOp, "route");
  const TensorView out = output(call, kOp);
  const int64_t cols = kit::check_moe_combine(y, route, out);
  const int64_t slots = route.cols() / 2;
  for (int64_t t = 0; t < y.rows(); ++t) {
    const float* w = route.row<const float>(t) + slots;
    const float* in = y.row<const float>(t);
    float* o = out.row<float>(t);
    for (int64_t c = 0; c < cols; ++c) {
      float sum = 0.0f;
      for (int64_t j = 0; j < slots; ++j) sum += w[j] * in[j * cols + c];
      o[c] = sum;
    }
  }
}

}  // namespace tessera::cpu
