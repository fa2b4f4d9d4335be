#include "dsl/scalar_eval.h"

#include <charconv>
#include <cmath>

#include "dsl/diagnostics.h"
#include "dsl/op_table.h"

namespace tessera::dsl {

std::string Scalar::to_string() const {
  if (is_integer) return std::to_string(integer);
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, real);  // shortest round trip
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

Scalar ScalarScope::read_source(const Expr& call, ScalarFunction) const {
  throw tessera::Error("internal: " + call.text + "() evaluated outside the hparams section");
}

namespace {

ExprPtr literal(const Expr& at, int64_t value) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Number;
  e->loc = at.loc;
  e->begin = at.begin;
  e->end = at.end;
  e->is_integer = true;
  e->integer = value;
  e->number = static_cast<double>(value);
  return e;
}

ExprPtr string_literal(const Expr& s) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::String;
  e->loc = s.loc;
  e->begin = s.begin;
  e->end = s.end;
  e->text = s.text;
  e->type = ValueType::String;
  return e;
}

}  // namespace

// has(name, hf: key) is shape(name, 0, -1, hf: key) >= 0: the tensor is looked up
// exactly as shape() looks it up (hf: in a Hugging Face folder, "a|b" alternatives,
// {placeholders}), and -1 is no dimension a tensor has.
bool ScalarScope::has_tensor(const Expr& call) const {
  Expr shape;
  shape.kind = ExprKind::Call;
  shape.text = "shape";
  shape.loc = call.loc;
  shape.begin = call.begin;
  shape.end = call.end;
  shape.args.push_back(string_literal(*call.args[0]));
  shape.args.push_back(literal(call, 0));
  shape.args.push_back(literal(call, -1));
  for (const NamedArg& n : call.named) shape.named.push_back(NamedArg{n.name, n.loc, string_literal(*n.value)});
  const Scalar first_dim = read_source(shape, ScalarFunction::Shape);
  return first_dim.is_integer && first_dim.integer >= 0;
}

namespace {

class Evaluator {
 public:
  Evaluator(const ScalarScope& scope, const SourceText& source) : scope_(scope), source_(source) {}

  Scalar eval(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Number:
        return e.is_integer ? Scalar::of_integer(e.integer) : Scalar::of_real(e.number);
      case ExprKind::Name:
        if (std::optional<Scalar> v = scope_.find(e.text)) return *v;
        fail(e, "'" + e.text + "' has no numeric value here");
      case ExprKind::Unary:
        if (e.op == "!") return truth(!is_true(eval(*e.args[0])));
        return negate(e, eval(*e.args[0]));
      case ExprKind::Binary:
        if (e.op == "&&" || e.op == "||") return logical(e);
        return binary(e, eval(*e.args[0]), eval(*e.args[1]));
      case ExprKind::Call:
        return call(e);
      case ExprKind::String:
      case ExprKind::Index:
        break;
    }
    fail(e, "'" + text(e) + "' is not a number");
  }

 private:
  // Errors about an operator point at it, others at the expression's start.
  [[noreturn]] void fail(const Expr& e, std::string message) const {
    const bool is_operator = e.kind == ExprKind::Binary || e.kind == ExprKind::Unary;
    fail_at(source_, is_operator ? e.op_loc : e.loc, std::move(message));
  }
  std::string text(const Expr& e) const { return std::string(source_.slice(e.begin, e.end)); }

  static bool is_true(const Scalar& v) { return v.as_double() != 0; }
  static Scalar truth(bool b) { return Scalar::of_integer(b ? 1 : 0); }

  // && and || evaluate their right operand only when the left one does not decide,
  // so `hf || meta(...)` reads nothing from a Hugging Face folder.
  Scalar logical(const Expr& e) const {
    const bool left = is_true(eval(*e.args[0]));
    if (e.op == "&&" ? !left : left) return truth(left);
    return truth(is_true(eval(*e.args[1])));
  }

  // Integers compare exactly (as int64: 2^53 + 1 is not 2^53); a float operand makes
  // both doubles.
  static Scalar compare(const std::string& op, const Scalar& a, const Scalar& b) {
    if (a.is_integer && b.is_integer) return compare_values(op, a.integer, b.integer);
    return compare_values(op, a.as_double(), b.as_double());
  }
  template <class T>
  static Scalar compare_values(const std::string& op, T a, T b) {
    if (op == "<") return truth(a < b);
    if (op == "<=") return truth(a <= b);
    if (op == ">") return truth(a > b);
    if (op == ">=") return truth(a >= b);
    if (op == "==") return truth(a == b);
    return truth(a != b);  // "!="
  }

  Scalar negate(const Expr& e, Scalar v) const {
    if (!v.is_integer) return Scalar::of_real(-v.real);
    if (v.integer == INT64_MIN) fail(e, "integer overflow in '" + text(e) + "'");
    return Scalar::of_integer(-v.integer);
  }

  Scalar binary(const Expr& e, Scalar a, Scalar b) const {
    if (e.op == "%") return remainder(e, a, b);
    if (is_relational_operator(e.op) || is_equality_operator(e.op)) return compare(e.op, a, b);
    if (!a.is_integer || !b.is_integer) return real_binary(e, a.as_double(), b.as_double());
    int64_t r = 0;
    bool overflow = false;
    if (e.op == "+") overflow = __builtin_add_overflow(a.integer, b.integer, &r);
    else if (e.op == "-") overflow = __builtin_sub_overflow(a.integer, b.integer, &r);
    else if (e.op == "*") overflow = __builtin_mul_overflow(a.integer, b.integer, &r);
    else return integer_divide(e, a.integer, b.integer);
    if (overflow) fail(e, "integer overflow in '" + text(e) + "'");
    return Scalar::of_integer(r);
  }

  // Integers are sizes: a remainder would silently drop part of a dimension.
  Scalar integer_divide(const Expr& e, int64_t a, int64_t b) const {
    if (b == 0) fail(e, "division by zero in '" + text(e) + "'");
    if (a % b != 0) {
      fail(e, "integer division '" + text(e) + "' is not exact: " + std::to_string(a) + " / " +
                  std::to_string(b) + " leaves a remainder of " + std::to_string(a % b) +
                  " (write a float, as 1.0 * a / b, for a fractional result)");
    }
    return Scalar::of_integer(a / b);
  }

  // Layer-pattern arithmetic (every other layer is local): integers only.
  Scalar remainder(const Expr& e, Scalar a, Scalar b) const {
    if (!a.is_integer || !b.is_integer) fail(e, "'%' needs integers, but '" + text(e) + "' has a float operand");
    if (b.integer == 0) fail(e, "division by zero in '" + text(e) + "'");
    if (b.integer == -1) return Scalar::of_integer(0);  // INT64_MIN % -1 would trap
    return Scalar::of_integer(a.integer % b.integer);
  }

  Scalar real_binary(const Expr& e, double a, double b) const {
    if (e.op == "+") return Scalar::of_real(a + b);
    if (e.op == "-") return Scalar::of_real(a - b);
    if (e.op == "*") return Scalar::of_real(a * b);
    if (b == 0) fail(e, "division by zero in '" + text(e) + "'");
    return Scalar::of_real(a / b);
  }

  Scalar call(const Expr& e) const {
    const ScalarFunctionSpec* fn = find_scalar_function(e.text);
    if (!fn) fail(e, "'" + e.text + "(...)' is not a number");
    switch (fn->id) {
      case ScalarFunction::Sqrt: {
        const double x = eval(*e.args[0]).as_double();
        if (x < 0) fail(e, "square root of a negative number: '" + text(e) + "'");
        return Scalar::of_real(std::sqrt(x));
      }
      case ScalarFunction::Pow: return power(e, eval(*e.args[0]), eval(*e.args[1]));
      case ScalarFunction::If: return eval(*e.args[is_true(eval(*e.args[0])) ? 1 : 2]);
      case ScalarFunction::Has: return truth(scope_.has_tensor(e));
      case ScalarFunction::Round: {
        const double x = std::round(eval(*e.args[0]).as_double());
        if (!(std::fabs(x) < 9e18)) fail(e, "'" + text(e) + "' does not fit an integer");
        return Scalar::of_integer(static_cast<int64_t>(x));
      }
      default: return scope_.read_source(e, fn->id);
    }
  }

  // Integer powers stay integers (sizes); anything else is a float.
  Scalar power(const Expr& e, Scalar base, Scalar exponent) const {
    if (base.is_integer && exponent.is_integer && exponent.integer >= 0) {
      int64_t r = 1;
      for (int64_t i = 0; i < exponent.integer; ++i) {
        if (__builtin_mul_overflow(r, base.integer, &r)) fail(e, "integer overflow in '" + text(e) + "'");
      }
      return Scalar::of_integer(r);
    }
    const double r = std::pow(base.as_double(), exponent.as_double());
    if (!std::isfinite(r)) fail(e, "'" + text(e) + "' is not a finite number");
    return Scalar::of_real(r);
  }

  const ScalarScope& scope_;
  const SourceText& source_;
};

}  // namespace

Scalar eval_scalar(const Expr& e, const ScalarScope& scope, const SourceText& source) {
  return Evaluator(scope, source).eval(e);
}

int64_t require_integer(const Scalar& v, const Expr& e, const SourceText& source,
                        std::string_view what) {
  if (!v.is_integer) {
    fail_at(source, e.loc,
            std::string(what) + " must be an integer, but '" +
                std::string(source.slice(e.begin, e.end)) + "' is " + v.to_string());
  }
  return v.integer;
}

}  // namespace tessera::dsl
