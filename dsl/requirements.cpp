#include "dsl/requirements.h"

#include <algorithm>

#include "dsl/diagnostics.h"

namespace tessera::dsl {
namespace {

void collect_names(const Expr& e, std::vector<std::string>* names) {
  if (e.kind == ExprKind::Name && e.name_kind == NameKind::HParam &&
      std::find(names->begin(), names->end(), e.text) == names->end()) {
    names->push_back(e.text);
  }
  for (const ExprPtr& a : e.args) collect_names(*a, names);
  for (const NamedArg& n : e.named) collect_names(*n.value, names);
}

}  // namespace

std::vector<std::string> names_in(const Expr& condition) {
  std::vector<std::string> names;
  collect_names(condition, &names);
  return names;
}

const Expr& failing_part(const Expr& condition, const std::function<bool(const Expr&)>& holds) {
  if (condition.kind != ExprKind::Binary || condition.op != "&&") return condition;
  const Expr& left = *condition.args[0];
  return holds(left) ? failing_part(*condition.args[1], holds) : failing_part(left, holds);
}

std::string broken_requirement(const std::vector<NamedValue>& values, const std::string& condition) {
  if (values.empty()) return "'" + condition + "' does not hold";
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " and " : ", ";
    out += values[i].name + " = " + values[i].value + " (" + values[i].origin + ")";
  }
  return out + (values.size() == 1 ? " breaks " : " break ") + condition;
}

void check_requirement(const Requirement& r, const ScalarScope& scope, const SourceText& source,
                       const std::function<NamedValue(const std::string& name)>& describe) {
  const auto holds = [&](const Expr& e) { return eval_scalar(e, scope, source).as_double() != 0; };
  if (holds(*r.condition)) return;
  const Expr& part = failing_part(*r.condition, holds);
  std::vector<NamedValue> values;
  for (const std::string& name : names_in(part)) values.push_back(describe(name));
  fail_at(source, part.loc, broken_requirement(values, collapse_blanks(source.slice(part.begin, part.end))));
}

}  // namespace tessera::dsl
