// The semantic check of operators and if(): which operands each takes (numbers,
// tensors), what it gives, and the mistakes C lets through (a < b < c).
#include <string>

#include "dsl/semantic_expr.h"

namespace tessera::dsl {
namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

// -x negates a number or a tensor; !x is 1 for a number that is 0, else 0.
ValueType ExprChecker::check_unary(Expr& e, const NameScope& scope) {
  Expr& operand = *e.args[0];
  const ValueType t = check(operand, scope);
  if (t == ValueType::Scalar || (t == ValueType::Tensor && e.op == "-")) return t;
  const std::string written(model_.source.slice(operand.begin, operand.end));
  if (t == ValueType::Tensor) {
    fail(e.op_loc, "operator '!' needs a number, but '" + written + "' is a tensor");
  }
  fail(operand.loc, "the operand of '" + e.op + "' must be a number, but '" + written + "' is " +
                        std::string(describe_type(t)));
}

// Arithmetic on numbers and tensors; comparisons and && || on numbers only.
ValueType ExprChecker::check_binary(Expr& e, const NameScope& scope) {
  const ValueType a = check(*e.args[0], scope);
  const ValueType b = check(*e.args[1], scope);
  for (const Expr* operand : {e.args[0].get(), e.args[1].get()}) {
    if (operand->type != ValueType::Scalar && operand->type != ValueType::Tensor) {
      fail(operand->loc, "operator '" + e.op + "' needs numbers or tensors, but " +
                             quoted(model_.source.slice(operand->begin, operand->end)) + " is " +
                             std::string(describe_type(operand->type)));
    }
  }
  return is_arithmetic_operator(e.op) ? check_arithmetic(e, a, b) : check_logic(e);
}

// Numbers combine with + - * / %. Tensors add, subtract and multiply elementwise; a
// tensor times or divided by a number is scaled, and plus or minus a number shifted.
ValueType ExprChecker::check_arithmetic(Expr& e, ValueType a, ValueType b) {
  const auto text_of = [&](const Expr& x) { return quoted(model_.source.slice(x.begin, x.end)); };
  if (a == ValueType::Scalar && b == ValueType::Scalar) return ValueType::Scalar;
  if (a == ValueType::Tensor && b == ValueType::Tensor) {
    if (e.op != "/" && e.op != "%") return ValueType::Tensor;
    fail(e.op_loc, "operator '" + e.op + "' is not defined for two tensors (only +, - and elementwise *)");
  }
  if (e.op == "%") {
    fail(e.op_loc, "operator '%' needs two integers, but " + text_of(*e.args[a == ValueType::Tensor ? 0 : 1]) +
                       " is a tensor");
  }
  if (e.op == "/" && b == ValueType::Tensor) {
    fail(e.op_loc, "operator '/' cannot divide a number by a tensor (" + text_of(*e.args[0]) + " by " +
                       text_of(*e.args[1]) + ")");
  }
  return ValueType::Tensor;
}

// Comparisons and && || take numbers and give 1 or 0. A comparison of a comparison is
// refused unless parenthesised: `a < b < c` would compare the 1 or 0 of `a < b` with c.
ValueType ExprChecker::check_logic(Expr& e) {
  for (const Expr* operand : {e.args[0].get(), e.args[1].get()}) {
    if (operand->type == ValueType::Tensor) {
      fail(e.op_loc, "operator '" + e.op + "' needs numbers, but " +
                         quoted(model_.source.slice(operand->begin, operand->end)) + " is a tensor");
    }
  }
  const Expr& lhs = *e.args[0];
  const bool chained = lhs.kind == ExprKind::Binary && !lhs.parenthesized &&
                       ((is_relational_operator(e.op) && is_relational_operator(lhs.op)) ||
                        (is_equality_operator(e.op) && is_equality_operator(lhs.op)));
  if (chained) {
    const std::string first(model_.source.slice(lhs.args[1]->begin, lhs.args[1]->end));
    fail(e.op_loc, "comparisons do not chain: '" + std::string(model_.source.slice(e.begin, e.end)) +
                       "' would compare the 1 or 0 of '" + std::string(model_.source.slice(lhs.begin, lhs.end)) +
                       "'; write '" + std::string(model_.source.slice(lhs.begin, lhs.end)) + " && " + first + " " +
                       e.op + " " + std::string(model_.source.slice(e.args[1]->begin, e.args[1]->end)) + "'");
  }
  return ValueType::Scalar;
}

// if(condition, a, b) of two numbers is a number; of two tensors (in the forward
// section), a tensor: the condition is known when compiling, so only the chosen branch
// is lowered, but both are checked here, names and types alike.
ValueType ExprChecker::check_if(Expr& e, const NameScope& scope) {
  expect(*e.args[0], scope, ValueType::Scalar, "the condition of if()");
  const ValueType a = check(*e.args[1], scope);
  const ValueType b = check(*e.args[2], scope);
  for (size_t i = 1; i < 3; ++i) {
    const Expr& branch = *e.args[i];
    if (branch.type != ValueType::Scalar && branch.type != ValueType::Tensor) {
      fail(branch.loc, "the branches of if() must be numbers or tensors, but " +
                           quoted(model_.source.slice(branch.begin, branch.end)) + " is " +
                           std::string(describe_type(branch.type)));
    }
  }
  if (a != b) {
    const auto text_of = [&](const Expr& x) { return quoted(model_.source.slice(x.begin, x.end)); };
    fail(e.args[2]->loc, "the branches of if() must both be numbers or both tensors, but " + text_of(*e.args[1]) +
                             " is " + std::string(describe_type(a)) + " and " + text_of(*e.args[2]) + " is " +
                             std::string(describe_type(b)));
  }
  return a;
}

}  // namespace tessera::dsl
