#include "dsl/hparam_kinds.h"

#include <cmath>
#include <cstdint>

#include "dsl/op_table.h"

namespace tessera::dsl {

std::string_view describe(NumberKind kind) {
  switch (kind) {
    case NumberKind::Integer: return "a whole number";
    case NumberKind::Flag: return "true or false";
    case NumberKind::Real:
    case NumberKind::Any: break;
  }
  return "a number";
}

namespace {

bool is_whole(NumberKind k) { return k == NumberKind::Integer || k == NumberKind::Flag; }

// + - * / and pow(): a float operand makes a float; integers (flags count as 1 and 0)
// stay integers.
NumberKind arithmetic(NumberKind a, NumberKind b) {
  if (a == NumberKind::Real || b == NumberKind::Real) return NumberKind::Real;
  if (is_whole(a) && is_whole(b)) return NumberKind::Integer;
  return NumberKind::Any;
}

// if(c, a, b): the kind both branches share.
NumberKind either(NumberKind a, NumberKind b) {
  if (a == b) return a;
  if (is_whole(a) && is_whole(b)) return NumberKind::Integer;
  return NumberKind::Any;
}

}  // namespace

NumberKind kind_of(const Expr& e, const std::function<NumberKind(std::string_view)>& kind_of_name) {
  const auto arg = [&](size_t i) { return kind_of(*e.args[i], kind_of_name); };
  switch (e.kind) {
    case ExprKind::Number:
      if (e.is_flag) return NumberKind::Flag;
      return e.is_integer ? NumberKind::Integer : NumberKind::Real;
    case ExprKind::Name:
      return kind_of_name(e.text);
    case ExprKind::Unary:
      if (e.op == "!") return NumberKind::Flag;
      return arg(0) == NumberKind::Flag ? NumberKind::Integer : arg(0);
    case ExprKind::Binary:
      if (e.op == "%") return NumberKind::Integer;
      if (is_arithmetic_operator(e.op)) return arithmetic(arg(0), arg(1));
      return NumberKind::Flag;  // comparisons, && and ||
    case ExprKind::Call:
      break;
    case ExprKind::String:
    case ExprKind::Index:
      return NumberKind::Any;
  }
  const ScalarFunctionSpec* fn = find_scalar_function(e.text);
  if (!fn) return NumberKind::Any;
  switch (fn->id) {
    case ScalarFunction::Meta: return e.args.size() > 1 ? arg(1) : NumberKind::Integer;
    case ScalarFunction::Shape:
    case ScalarFunction::Round: return NumberKind::Integer;
    case ScalarFunction::Has: return NumberKind::Flag;
    case ScalarFunction::Sqrt: return NumberKind::Real;
    case ScalarFunction::Pow: return arithmetic(arg(0), arg(1));
    case ScalarFunction::If: return either(arg(1), arg(2));
  }
  return NumberKind::Any;
}

std::optional<Scalar> meta_as(const MetaValue& m, NumberKind kind, std::string* found) {
  constexpr double kTwo63 = 9223372036854775808.0;
  const auto& v = m.value;
  *found = m.to_display();
  if (const bool* b = std::get_if<bool>(&v)) {
    if (kind == NumberKind::Flag) return Scalar::of_integer(*b ? 1 : 0);
    return std::nullopt;
  }
  if (std::holds_alternative<int64_t>(v) || std::holds_alternative<uint64_t>(v)) {
    const auto* u = std::get_if<uint64_t>(&v);
    if (kind == NumberKind::Real) return Scalar::of_real(u ? static_cast<double>(*u) : static_cast<double>(std::get<int64_t>(v)));
    if (u && *u > static_cast<uint64_t>(INT64_MAX)) {
      *found += ", beyond a signed 64-bit integer";
      return std::nullopt;
    }
    const int64_t i = u ? static_cast<int64_t>(*u) : std::get<int64_t>(v);
    if (kind == NumberKind::Flag && i != 0 && i != 1) return std::nullopt;
    return Scalar::of_integer(i);
  }
  if (const double* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) {
      *found += ", not a finite number";
      return std::nullopt;
    }
    if (kind == NumberKind::Real || kind == NumberKind::Any) return Scalar::of_real(*d);
    if (kind == NumberKind::Flag || std::trunc(*d) != *d) return std::nullopt;
    if (*d < -kTwo63 || *d >= kTwo63) {
      *found += ", beyond a signed 64-bit integer";
      return std::nullopt;
    }
    return Scalar::of_integer(static_cast<int64_t>(*d));
  }
  *found = (std::holds_alternative<std::string>(v) ? "a string, " : "an array, ") + *found;
  return std::nullopt;
}

}  // namespace tessera::dsl
