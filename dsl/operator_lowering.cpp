// The lowering of the DSL's operators on tensors: a + b, a - b and a * b of two tensors
// (ADD, SUB, MUL), and a tensor with a number (SCALE, AFFINE). The expressions were
// typed by the semantic check; shapes are checked here.
#include "dsl/lowering.h"

namespace tessera::dsl {

int lower_elementwise(GraphBuilder& b, const Expr& e, int lhs, int rhs) {
  const OpKind op = e.op == "+" ? OpKind::Add : e.op == "-" ? OpKind::Sub : OpKind::Mul;
  const Shape& a = b.shape(lhs);
  const Shape& c = b.shape(rhs);
  const auto is_row_of = [](const Shape& row, const Shape& m) {
    return row.size() == 1 && m.size() == 2 && row[0] == m[1];
  };
  if (a == c || is_row_of(c, a)) return b.add_node(op, {}, {lhs, rhs}, a);
  if (is_row_of(a, c)) {
    // The kernels broadcast input 1, so the row goes second: row - m is -(m - row).
    const int swapped = b.add_node(op, {}, {rhs, lhs}, c);
    return op == OpKind::Sub ? lower_affine(b, swapped, -1.0, 0.0) : swapped;
  }
  b.fail_at_operator(e, "'" + e.op + "' needs tensors of the same shape (or a row [C] and a [N, C]), but " +
                            b.describe(*e.args[0], lhs) + " and " + b.describe(*e.args[1], rhs) + " differ");
}

int lower_scale_by(GraphBuilder& b, int x, double factor) {
  const ScaleParams params{static_cast<float>(factor)};
  return b.add_node(OpKind::Scale, params, {x}, b.shape(x));
}

int lower_affine(GraphBuilder& b, int x, double scale, double bias) {
  const AffineParams params{static_cast<float>(scale), static_cast<float>(bias)};
  return b.add_node(OpKind::Affine, params, {x}, b.shape(x));
}

}  // namespace tessera::dsl
