#include "dsl/semantic_expr.h"

#include <algorithm>

#include "dsl/diagnostics.h"
#include "dsl/name_template.h"
#include "dsl/op_table.h"
#include "dsl/nesting_limits.h"

namespace tessera::dsl {

bool NameScope::has_loop_var(std::string_view name) const {
  return std::find(loop_vars.begin(), loop_vars.end(), name) != loop_vars.end();
}

const Variable* NameScope::find_variable(std::string_view name) const {
  if (!variables) return nullptr;
  for (const auto& block : *variables) {
    const auto it = block.find(std::string(name));
    if (it != block.end()) return &it->second;
  }
  return nullptr;
}

std::string_view describe_type(ValueType t) {
  switch (t) {
    case ValueType::Tensor: return "a tensor";
    case ValueType::Scalar: return "a number";
    case ValueType::String: return "a string";
    case ValueType::Choice: return "a name";
    case ValueType::Unknown: break;
  }
  return "nothing";
}

std::string reserved_name(std::string_view name) {
  if (name == "arch") return "'arch' is reserved: {arch} names the weights file's architecture";
  if (name == kHfFormatName) return "'hf' is reserved: it is 1 when the weights are a Hugging Face folder";
  if (name == "true" || name == "false") {
    return "'" + std::string(name) + "' is reserved: true and false are the flags 1 and 0";
  }
  return "";
}

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

template <typename Strings>
std::string join(const Strings& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + std::string(items[i]);
  return out;
}

}  // namespace

ExprChecker::ExprChecker(const ModelDef& model, std::set<std::string>* used_weights)
    : model_(model), used_weights_(used_weights) {}

void ExprChecker::fail(SourceLocation at, std::string message) const {
  fail_at(model_.source, at, std::move(message));
}

ValueType ExprChecker::check(Expr& e, const NameScope& scope) {
  switch (e.kind) {
    case ExprKind::Number: e.type = ValueType::Scalar; break;
    case ExprKind::String: e.type = ValueType::String; break;
    case ExprKind::Name: e.type = check_name(e, scope); break;
    case ExprKind::Index: e.type = check_index(e, scope); break;
    case ExprKind::Unary: e.type = check_unary(e, scope); break;
    case ExprKind::Binary: e.type = check_binary(e, scope); break;
    case ExprKind::Call: e.type = check_call(e, scope); break;
  }
  return e.type;
}

void ExprChecker::expect(Expr& e, const NameScope& scope, ValueType want, std::string_view what) {
  const ValueType got = check(e, scope);
  if (got != want) {
    fail(e.loc, std::string(what) + " must be " + std::string(describe_type(want)) + ", but '" +
                    std::string(model_.source.slice(e.begin, e.end)) + "' is " +
                    std::string(describe_type(got)));
  }
}

std::vector<std::string> ExprChecker::weight_names() const {
  std::vector<std::string> names;
  for (const WeightDecl& w : model_.weights) names.push_back(w.name);
  return names;
}

// Every name `scope` can see, for "did you mean" hints.
std::vector<std::string> ExprChecker::visible_names(const NameScope& scope) const {
  std::vector<std::string> names(scope.loop_vars.begin(), scope.loop_vars.end());
  for (size_t i = 0; i < scope.visible_hparams && i < model_.hparams.size(); ++i) {
    names.push_back(model_.hparams[i].name);
  }
  if (scope.section == Section::Forward) {
    for (const WeightDecl& w : model_.weights) names.push_back(w.name);
    if (scope.variables) {
      for (const auto& block : *scope.variables) {
        for (const auto& [name, variable] : block) names.push_back(name);
      }
    }
  }
  return names;
}

ValueType ExprChecker::check_name(Expr& e, const NameScope& scope) {
  if (scope.has_loop_var(e.text)) {
    e.name_kind = NameKind::LoopVar;
    return ValueType::Scalar;
  }
  if (const Variable* v = scope.find_variable(e.text)) {
    e.name_kind = NameKind::Variable;
    return v->type;
  }
  if (const WeightDecl* w = model_.find_weight(e.text)) {
    if (scope.section != Section::Forward) {
      fail(e.loc, quoted(e.text) + " is a weight; only numbers can be used here");
    }
    if (w->group >= 0) {
      fail(e.loc, "weight " + quoted(e.text) + " is declared per layer; index it, as " +
                      e.text + "[i]");
    }
    e.name_kind = NameKind::Weight;
    used_weights_->insert(e.text);
    return ValueType::Tensor;
  }
  if (e.text == kHfFormatName) {  // predefined: 1 when the weights are a Hugging Face folder
    e.name_kind = NameKind::HParam;
    return ValueType::Scalar;
  }
  for (size_t i = 0; i < model_.hparams.size(); ++i) {
    if (model_.hparams[i].name != e.text) continue;
    if (i >= scope.visible_hparams) {
      fail(e.loc, "hyper-parameter " + quoted(e.text) + " is used before its definition (line " +
                      std::to_string(model_.hparams[i].loc.line) + ")");
    }
    e.name_kind = NameKind::HParam;
    return ValueType::Scalar;
  }
  const std::string kind =
      scope.section == Section::Forward ? "undefined variable " : "unknown hyper-parameter ";
  fail(e.loc, kind + quoted(e.text) + did_you_mean(e.text, visible_names(scope)));
}

ValueType ExprChecker::check_index(Expr& e, const NameScope& scope) {
  const WeightDecl* w = model_.find_weight(e.text);
  const bool names_something_else =
      scope.has_loop_var(e.text) || scope.find_variable(e.text) || model_.find_hparam(e.text);
  if (scope.section != Section::Forward || (!w && names_something_else)) {
    fail(e.loc, quoted(e.text) + " cannot be indexed: only per-layer weights can, in the forward section");
  }
  if (!w) fail(e.loc, "undefined weight " + quoted(e.text) + did_you_mean(e.text, weight_names()));
  if (w->group < 0) {
    fail(e.loc, "weight " + quoted(e.text) + " is one tensor, not one per layer; drop the index");
  }
  expect(*e.args[0], scope, ValueType::Scalar, "the index of " + quoted(e.text));
  e.name_kind = NameKind::Weight;
  used_weights_->insert(e.text);
  return ValueType::Tensor;
}

ValueType ExprChecker::check_call(Expr& e, const NameScope& scope) {
  if (is_plugin_op_name(e.text)) return check_plugin_op_call(e, scope);
  if (e.text == "if" && e.args.size() == 3 && e.named.empty()) return check_if(e, scope);
  if (const BlockDef* block = model_.find_block(e.text)) return check_block_call(e, *block, scope);
  if (find_op(e.text)) return check_op_call(e, scope);
  if (find_scalar_function(e.text)) return check_scalar_call(e, scope);
  std::vector<std::string> names = callable_names();
  for (const BlockDef& b : model_.blocks) names.push_back(b.name);
  fail(e.loc, "unknown op " + quoted(e.text) + did_you_mean(e.text, names));
}

ValueType ExprChecker::check_op_call(Expr& e, const NameScope& scope) {
  const OpSpec& op = *find_op(e.text);
  if (scope.section != Section::Forward) {
    fail(e.loc, quoted(e.text) + " is a graph op; it can only be used in the forward section");
  }
  const size_t required = op.required_params();
  if (e.args.size() < required || e.args.size() > op.params.size()) {
    const std::string count = required == op.params.size()
                                  ? std::to_string(required)
                                  : std::to_string(required) + " to " + std::to_string(op.params.size());
    fail(e.loc, quoted(e.text) + " takes " + count + " argument" + (op.params.size() == 1 ? "" : "s") + " " +
                    op.signature().substr(op.name.size()) + ", but " + std::to_string(e.args.size()) + " " +
                    (e.args.size() == 1 ? "was" : "were") + " given");
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const ValueType want = op.params[i].type == ArgType::Tensor ? ValueType::Tensor : ValueType::Scalar;
    expect(*e.args[i], scope, want,
           "argument " + quoted(op.params[i].name) + " of " + std::string(op.name));
  }
  check_attributes(e, scope);
  return ValueType::Tensor;
}

// `acme.op(tensors..., name: number, ...)`: what the op takes is the plugin's to say,
// checked when compiling against the loaded plugins' declarations (plugin_op_lowering).
ValueType ExprChecker::check_plugin_op_call(Expr& e, const NameScope& scope) {
  if (scope.section != Section::Forward) {
    fail(e.loc, quoted(e.text) + " is an op of plugin " + quoted(e.text.substr(0, e.text.find('.'))) +
                    "; it can only be used in the forward section");
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    expect(*e.args[i], scope, ValueType::Tensor, "argument " + std::to_string(i + 1) + " of " + e.text);
  }
  for (size_t i = 0; i < e.named.size(); ++i) {
    NamedArg& arg = e.named[i];
    for (size_t j = 0; j < i; ++j) {
      if (e.named[j].name == arg.name) fail(arg.loc, "attribute " + quoted(arg.name) + " is given twice");
    }
    expect(*arg.value, scope, ValueType::Scalar, "attribute " + quoted(arg.name) + " of " + e.text);
  }
  return ValueType::Tensor;
}

void ExprChecker::check_attributes(Expr& e, const NameScope& scope) {
  const OpSpec& op = *find_op(e.text);
  std::vector<bool> given(op.attributes.size(), false);
  for (NamedArg& arg : e.named) {
    const int index = op.attribute_index(arg.name);
    if (index < 0) {
      std::string hint = did_you_mean(arg.name, op.attribute_names());
      if (hint.empty()) {
        hint = op.attributes.empty() ? "; it has none" : "; it has: " + join(op.attribute_names());
      }
      fail(arg.loc, "unknown attribute " + quoted(arg.name) + " for " + std::string(op.name) + hint);
    }
    if (given[static_cast<size_t>(index)]) fail(arg.loc, "attribute " + quoted(arg.name) + " is given twice");
    given[static_cast<size_t>(index)] = true;
    const ArgSpec& spec = op.attributes[static_cast<size_t>(index)];
    Expr& value = *arg.value;
    if (spec.type != ArgType::Choice) {
      expect(value, scope, ValueType::Scalar,
             "attribute " + quoted(arg.name) + " of " + std::string(op.name));
      continue;
    }
    check_choice(value, spec, "attribute " + quoted(arg.name) + " of " + std::string(op.name), scope);
  }
  for (size_t i = 0; i < op.attributes.size(); ++i) {
    if (op.attributes[i].required && !given[i]) {
      fail(e.loc, std::string(op.name) + " needs the attribute " + quoted(op.attributes[i].name) +
                      " (" + std::string(op.attributes[i].help) + ")");
    }
  }
}

// A block's parameters take the types of its first call; every call must match them.
ValueType ExprChecker::check_block_call(Expr& e, const BlockDef& block, const NameScope& scope) {
  if (scope.section != Section::Forward) {
    fail(e.loc, "block " + quoted(e.text) + " is a graph computation; it can only be used in the forward section");
  }
  const int index = static_cast<int>(&block - model_.blocks.data());
  if (scope.block_index >= 0 && index >= scope.block_index) {
    const BlockDef& caller = model_.blocks[static_cast<size_t>(scope.block_index)];
    fail(e.loc, index == scope.block_index
                    ? "block " + quoted(caller.name) + " calls itself; blocks cannot be recursive"
                    : "block " + quoted(caller.name) + " calls " + quoted(e.text) + ", defined after it (line " +
                          std::to_string(block.loc.line) + "); a block can only call blocks defined before it");
  }
  if (!e.named.empty()) fail(e.named[0].loc, "block " + quoted(e.text) + " takes no named arguments");
  if (e.args.size() != block.params.size()) {
    fail(e.loc, "block " + quoted(e.text) + " takes " + std::to_string(block.params.size()) + " argument" +
                    (block.params.size() == 1 ? "" : "s") + " (" + join(block.params) + "), but " +
                    std::to_string(e.args.size()) + (e.args.size() == 1 ? " was" : " were") + " given");
  }
  std::vector<ValueType> types;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const ValueType t = check(*e.args[i], scope);
    if (t != ValueType::Tensor && t != ValueType::Scalar) {
      fail(e.args[i]->loc, "argument " + quoted(block.params[i]) + " of block " + quoted(e.text) +
                               " must be a tensor or a number, but is " + std::string(describe_type(t)));
    }
    types.push_back(t);
  }
  const auto known = block_param_types_.find(&block);
  if (known == block_param_types_.end()) {
    block_param_types_.emplace(&block, types);
    // A chain of blocks each calling the one before is checked recursively: bounded.
    if (++block_nesting_ > kMaxBlockNesting) {
      fail(e.loc, "blocks call one another more than " + std::to_string(kMaxBlockNesting) + " deep");
    }
    check_block_body_(block, types);
    --block_nesting_;
    return ValueType::Tensor;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != known->second[i]) {
      fail(e.args[i]->loc, "argument " + quoted(block.params[i]) + " of block " + quoted(e.text) + " is " +
                               std::string(describe_type(types[i])) + " here but " +
                               std::string(describe_type(known->second[i])) + " in its first call");
    }
  }
  return ValueType::Tensor;
}

// A choice is a bare name of the list, or if(condition, name, name).
void ExprChecker::check_choice(Expr& value, const ArgSpec& spec, const std::string& what,
                               const NameScope& scope) {
  if (value.kind == ExprKind::Call && value.text == "if" && value.named.empty() && value.args.size() == 3) {
    expect(*value.args[0], scope, ValueType::Scalar, "the condition of if()");
    check_choice(*value.args[1], spec, what, scope);
    check_choice(*value.args[2], spec, what, scope);
    value.type = ValueType::Choice;
    return;
  }
  std::vector<std::string> choices(spec.choices.begin(), spec.choices.end());
  if (value.kind != ExprKind::Name ||
      std::find(choices.begin(), choices.end(), value.text) == choices.end()) {
    const std::string written(model_.source.slice(value.begin, value.end));
    fail(value.loc, what + " must be one of " + join(spec.choices) + ", not " + quoted(written) +
                        did_you_mean(written, choices));
  }
  value.type = ValueType::Choice;
  value.name_kind = NameKind::Choice;
}

ValueType ExprChecker::check_scalar_call(Expr& e, const NameScope& scope) {
  const ScalarFunctionSpec& fn = *find_scalar_function(e.text);
  using S = ScalarFunctionSpec::Sections;
  if (fn.sections != S::All && scope.section == Section::Requirement) {
    fail(e.loc, "a requirement checks hyper-parameters and cannot read the weights file; define one as " +
                    e.text + "(...) and require a condition on it");
  }
  if (fn.sections == S::HParams && scope.section != Section::HParams) {
    fail(e.loc, e.text + "() can only be used in the hparams section");
  }
  if (fn.sections == S::HParamsAndForward && scope.section == Section::Weights) {
    fail(e.loc, e.text + "() can only be used in the hparams and forward sections");
  }
  for (NamedArg& arg : e.named) {
    if (!fn.takes_hf_key) fail(arg.loc, e.text + "() takes no named arguments");
    const bool known = arg.name == "hf" || (fn.takes_null_value && arg.name == "null");
    if (!known) {
      fail(arg.loc, e.text + "() takes " +
                        (fn.takes_null_value ? "the named arguments hf: \"key\" and null: value"
                                             : "one named argument, hf: \"key\"") +
                        ", not " + quoted(arg.name));
    }
    if (named_value(e, arg.name) != arg.value.get()) fail(arg.loc, arg.name + ": is given twice");
    if (arg.name == "null") {
      expect(*arg.value, scope, ValueType::Scalar, "null: of " + e.text + "()");
      continue;
    }
    if (arg.value->kind != ExprKind::String) fail(arg.value->loc, "hf: must be a string literal");
    arg.value->type = ValueType::String;
    check_template(arg.value->text, arg.value->loc, scope);
  }
  if (e.args.size() < fn.required || e.args.size() > fn.params.size()) {
    const std::string count = fn.required == fn.params.size()
                                  ? std::to_string(fn.required)
                                  : std::to_string(fn.required) + " to " + std::to_string(fn.params.size());
    fail(e.loc, quoted(e.text) + " takes " + count + " argument" + (fn.params.size() == 1 ? "" : "s") + " " +
                    fn.signature().substr(fn.name.size()) + ", but " + std::to_string(e.args.size()) +
                    (e.args.size() == 1 ? " was" : " were") + " given");
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    Expr& arg = *e.args[i];
    const std::string what = "argument " + quoted(fn.params[i].name) + " of " + e.text + "()";
    if (fn.params[i].type == ValueType::String) {
      if (arg.kind != ExprKind::String) fail(arg.loc, what + " must be a string literal");
      arg.type = ValueType::String;
      check_template(arg.text, arg.loc, scope);
    } else {
      expect(arg, scope, ValueType::Scalar, what);
    }
  }
  return ValueType::Scalar;
}

void ExprChecker::check_template(std::string_view text, SourceLocation at, const NameScope& scope, bool stacks) {
  std::vector<Placeholder> placeholders;
  std::string error;
  if (!find_placeholders(text, &placeholders, &error)) {
    fail(at, "bad name \"" + std::string(text) + "\": " + error);
  }
  for (const Placeholder& p : placeholders) {
    if (p.name == "arch" || scope.has_loop_var(p.name)) continue;
    if (p.name == "*") {
      if (stacks) continue;
      SourceLocation where = at;
      where.column += static_cast<int>(p.offset) + 1;
      fail(where, "{*} (one tensor of the folder per index of the first dimension, stacked) is for the hf: name "
                  "of a weight of 2 or more dimensions");
    }
    if (const Variable* v = scope.find_variable(p.name); v && v->type == ValueType::Scalar) continue;
    const auto* h = model_.find_hparam(p.name);
    if (h && static_cast<size_t>(h - model_.hparams.data()) < scope.visible_hparams) continue;
    std::vector<std::string> known = {"arch"};
    known.insert(known.end(), scope.loop_vars.begin(), scope.loop_vars.end());
    for (size_t i = 0; i < scope.visible_hparams; ++i) known.push_back(model_.hparams[i].name);
    SourceLocation where = at;  // point at the '{' inside the string
    where.column += static_cast<int>(p.offset) + 1;
    where.offset += p.offset + 1;
    fail(where, "unknown placeholder '{" + p.name + "}'" + did_you_mean(p.name, known));
  }
}

}  // namespace tessera::dsl
