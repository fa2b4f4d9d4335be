// The lowering of the mixture-of-experts ops: moe_route, moe_linear and moe_combine,
// with their shape rules. A route is [Tokens, 2k]: k expert indices, then k weights.
#include <string>

#include "dsl/lowering.h"

namespace tessera::dsl {
namespace {

const int64_t kTokens = sym(SymDim::Tokens);

std::string arg(const GraphBuilder& b, const OpCall& call, size_t i) {
  return b.describe(*call.params[i].expr, call.tensor(i));
}

// Argument i must be [Tokens, C]; returns C.
int64_t token_columns(const GraphBuilder& b, const OpCall& call, size_t i) {
  const Shape& s = b.shape(call.tensor(i));
  if (s.size() != 2 || s[0] != kTokens) {
    b.fail(*call.params[i].expr, std::string(call.spec->name) + " needs one row per token ([Tokens, C]) as '" +
                                     std::string(call.spec->params[i].name) + "', but " + arg(b, call, i) + " is not");
  }
  return s[1];
}

// Argument i must be a route [Tokens, 2k] (what moe_route returns); returns k.
int64_t route_slots(const GraphBuilder& b, const OpCall& call, size_t i) {
  const int64_t cols = token_columns(b, call, i);
  if (cols < 2 || cols % 2 != 0) {
    b.fail(*call.params[i].expr, std::string(call.spec->name) + " needs a route from moe_route ([Tokens, 2k]) as '" +
                                     std::string(call.spec->params[i].name) + "', but " + arg(b, call, i) + " is not");
  }
  return cols / 2;
}

}  // namespace

// moe_route(logits [Tokens, E], k:, gating:, normalize:, scale:) -> [Tokens, 2k].
int lower_moe_route(GraphBuilder& b, const OpCall& call) {
  const int64_t experts = token_columns(b, call, 0);
  MoeRouteParams p{};
  p.k = b.positive_int32(call, "k");
  if (p.k > experts) {
    b.fail(*call.attribute("k").expr, "moe_route: k is " + std::to_string(p.k) + " but " + arg(b, call, 0) +
                                           " scores only " + std::to_string(experts) + " experts");
  }
  p.gating = call.attribute("gating").choice == 0 ? TSR_MOE_SOFTMAX : TSR_MOE_SIGMOID;
  const ArgValue& normalize = call.attribute("normalize");
  if (normalize.scalar.integer != 0 && normalize.scalar.integer != 1) {
    b.fail(normalize.expr ? *normalize.expr : *call.expr,
           "moe_route: normalize must be 0 or 1, not " + normalize.scalar.to_string());
  }
  p.normalize = static_cast<int32_t>(normalize.scalar.integer);
  p.scale = static_cast<float>(call.attribute("scale").scalar.as_double());
  return b.add_node(OpKind::MoeRoute, p, {call.tensor(0)}, {kTokens, 2 * int64_t{p.k}});
}

// moe_linear(x [Tokens, K] or [Tokens, k * K], experts [E, M, K], route) -> [Tokens, k * M].
int lower_moe_linear(GraphBuilder& b, const OpCall& call) {
  const int64_t x_cols = token_columns(b, call, 0);
  const Shape& w = b.shape(call.tensor(1));
  if (w.size() != 3) {
    b.fail(*call.params[1].expr, "moe_linear needs the experts' matrices stacked ([E, M, K]) as 'experts', but " +
                                     arg(b, call, 1) + " has " + std::to_string(w.size()) + " dimensions");
  }
  const int64_t k = route_slots(b, call, 2);
  if (x_cols != w[2] && x_cols != k * w[2]) {
    b.fail(*call.expr, "moe_linear: the input " + arg(b, call, 0) + " has " + std::to_string(x_cols) +
                           " columns but the experts " + arg(b, call, 1) + " expect " + std::to_string(w[2]) +
                           " (or " + std::to_string(k * w[2]) + ": one part per chosen expert)");
  }
  return b.add_node(OpKind::MoeMatMul, {}, {call.tensor(0), call.tensor(1), call.tensor(2)}, {kTokens, k * w[1]});
}

// moe_combine(y [Tokens, k * C], route) -> [Tokens, C].
int lower_moe_combine(GraphBuilder& b, const OpCall& call) {
  const int64_t y_cols = token_columns(b, call, 0);
  const int64_t k = route_slots(b, call, 1);
  if (y_cols % k != 0) {
    b.fail(*call.expr, "moe_combine: the " + std::to_string(y_cols) + " columns of " + arg(b, call, 0) +
                           " do not split into the route's " + std::to_string(k) + " experts");
  }
  return b.add_node(OpKind::MoeCombine, {}, {call.tensor(0), call.tensor(1)}, {kTokens, y_cols / k});
}

}  // namespace tessera::dsl
