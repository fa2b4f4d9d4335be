#include "dsl/forward.h"

#include <algorithm>
#include <utility>

#include "dsl/diagnostics.h"
#include "dsl/plugin_op_lowering.h"
#include "dsl/semantic_expr.h"

namespace tessera::dsl {

ForwardCompiler::ForwardCompiler(const ModelDef& model, const HParamValues& hparams,
                                 const WeightBindings& weights, GraphBuilder& builder,
                                 const CustomOpCatalog* plugin_ops)
    : model_(model), weights_(weights), builder_(builder), plugin_ops_(plugin_ops), scope_(hparams) {}

void ForwardCompiler::run() { run_block(model_.forward); }

void ForwardCompiler::run_block(const std::vector<Statement>& block) {
  for (const Statement& s : block) {
    if (s.kind == Statement::Kind::For) {
      run_loop(s);
    } else if (s.kind == Statement::Kind::Assign) {
      run_assignment(s);
    }  // a Return is a block's value: block_value evaluates it
  }
}

void ForwardCompiler::run_loop(const Statement& s) {
  const int64_t begin = require_integer(scalar(*s.range.begin), *s.range.begin, model_.source,
                                        "the first index of a for loop");
  const int64_t end = require_integer(scalar(*s.range.end), *s.range.end, model_.source,
                                      "the end index of a for loop");
  for (int64_t i = begin; i < end; ++i) {
    scope_.push_loop_var(s.range.var, i);
    run_block(s.body);
    scope_.pop_loop_var();
  }
}

// In a block the layer is its caller's: the block's own names are not layers.
int64_t ForwardCompiler::current_layer() const {
  return in_block_ ? block_layer_ : scope_.innermost_loop_value();
}

// "layer 3: decoder: h = rms_norm(...)": where a node comes from.
std::string ForwardCompiler::label_of(const Statement& s) const {
  const std::string text = in_block_ ? in_block_->name + ": " + s.text : s.text;
  const int64_t layer = current_layer();
  return layer >= 0 ? "layer " + std::to_string(layer) + ": " + text : text;
}

void ForwardCompiler::run_assignment(const Statement& s) {
  builder_.set_statement(label_of(s), s.target, static_cast<int>(current_layer()), s.loc);
  const int id = tensor_value(*s.value);
  builder_.name_result(id);
  variables_[s.target] = id;
  assigned_by_[s.target] = &s;
}

// The semantic check typed every expression, so only tensor-valued kinds arrive here.
int ForwardCompiler::tensor_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      if (e.name_kind == NameKind::Variable) return variables_.at(e.text);
      return weight_value(e);
    case ExprKind::Index: return weight_value(e);
    case ExprKind::Binary: return binary_value(e);
    case ExprKind::Call: return call_value(e);
    default: break;
  }
  throw tessera::Error("internal: '" + std::string(model_.source.slice(e.begin, e.end)) +
                       "' is not a tensor expression");
}

int ForwardCompiler::weight_value(const Expr& e, bool may_be_absent) {
  const WeightDecl& decl = *model_.find_weight(e.text);
  int64_t layer = -1;
  if (e.kind == ExprKind::Index) {
    const Expr& index = *e.args[0];
    layer = require_integer(scalar(index), index, model_.source, "the index of '" + e.text + "'");
  }
  const BoundWeight& w = weights_.get(decl, layer, e);
  if (w.absent) {
    if (may_be_absent) return -1;
    fail_at(model_.source, e.loc,
            "weight '" + e.text + "' ('" + w.file_name + "') is not in the weights file; `else none` lets it be " +
                "absent only where an optional argument takes it, such as the bias of linear");
  }
  GraphTensor t;
  t.name = w.graph_name;
  t.dtype = w.dtype;
  t.shape = w.shape;
  t.file_name = w.file_name;
  t.gguf_name = w.gguf_name;
  t.hf_name = w.hf_name;
  t.transposed = w.transposed;
  t.widened = w.dtype != w.file_dtype;
  return builder_.weight(t);
}

int ForwardCompiler::binary_value(const Expr& e) {
  const Expr& lhs = *e.args[0];
  const Expr& rhs = *e.args[1];
  if (lhs.type == ValueType::Tensor && rhs.type == ValueType::Tensor) {
    const int a = tensor_value(lhs);
    const int b = tensor_value(rhs);
    return lower_elementwise(builder_, e, a, b);
  }
  // A tensor scaled by a number: x * s, s * x or x / s.
  const bool tensor_first = lhs.type == ValueType::Tensor;
  const int x = tensor_value(tensor_first ? lhs : rhs);
  const Expr& factor_expr = tensor_first ? rhs : lhs;
  double factor = scalar(factor_expr).as_double();
  if (e.op == '/') {
    if (factor == 0) fail_at(model_.source, e.op_loc, "division by zero in '" + std::string(model_.source.slice(e.begin, e.end)) + "'");
    factor = 1.0 / factor;
  }
  return lower_scale_by(builder_, x, factor);
}

// A block call: its arguments are evaluated here, then its body runs with only its
// parameters (and hyper-parameters, weights) in scope; the value is its return.
int ForwardCompiler::block_value(const Expr& e, const BlockDef& block) {
  std::map<std::string, int> tensors;
  std::vector<std::pair<std::string, Scalar>> numbers;
  for (size_t i = 0; i < block.params.size(); ++i) {
    if (e.args[i]->type == ValueType::Tensor) tensors[block.params[i]] = tensor_value(*e.args[i]);
    else numbers.emplace_back(block.params[i], scalar(*e.args[i]));
  }
  const GraphBuilder::StatementMark caller = builder_.statement_mark();
  const int64_t caller_layer = current_layer();
  std::swap(variables_, tensors);
  std::map<std::string, const Statement*> caller_assignments;
  std::swap(assigned_by_, caller_assignments);
  const BlockDef* caller_block = std::exchange(in_block_, &block);
  const int64_t saved_layer = std::exchange(block_layer_, caller_layer);
  for (auto& [name, value] : numbers) scope_.push_scalar(name, value);

  run_block(block.body);  // all but the return
  const Statement& ret = block.body.back();
  builder_.set_statement(label_of(ret), caller.target, caller.layer, ret.loc);  // the value takes the caller's name
  const int result = tensor_value(*ret.value);

  for (size_t i = 0; i < numbers.size(); ++i) scope_.pop_loop_var();
  block_layer_ = saved_layer;
  in_block_ = caller_block;
  assigned_by_ = std::move(caller_assignments);
  variables_ = std::move(tensors);
  builder_.restore_statement(caller);
  return result;
}

// A call to a plugin's op: the declaration is found (and the arguments counted) before
// anything is evaluated, then the shapes and dtypes are checked as the node is added.
int ForwardCompiler::plugin_op_value(const Expr& e) {
  const CustomOpSchema& op = find_plugin_op(plugin_ops_, e, model_.source);
  std::vector<int> inputs;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Expr& a = *e.args[i];
    // An optional input given an absent weight (`else none`) counts as left out.
    inputs.push_back(op.inputs[i].optional && a.name_kind == NameKind::Weight ? weight_value(a, true) : tensor_value(a));
  }
  std::vector<Scalar> given;
  for (const NamedArg& n : e.named) given.push_back(scalar(*n.value));
  return lower_plugin_op(builder_, op, e, inputs, bind_plugin_op_attrs(op, e, given, model_.source));
}

int ForwardCompiler::call_value(const Expr& e) {
  if (is_plugin_op_name(e.text)) return plugin_op_value(e);
  if (const BlockDef* block = model_.find_block(e.text)) return block_value(e, *block);
  const OpSpec& spec = *find_op(e.text);
  OpCall call;
  call.spec = &spec;
  call.expr = &e;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    call.params.push_back(i < e.args.size() ? bind(spec.params[i], *e.args[i],
                                                   "argument '" + std::string(spec.params[i].name) + "' of " + e.text)
                                            : ArgValue{});  // an optional argument left out
  }
  for (const ArgSpec& a : spec.attributes) {
    const auto given = std::find_if(e.named.begin(), e.named.end(),
                                    [&](const NamedArg& n) { return n.name == a.name; });
    call.attributes.push_back(given != e.named.end()
                                  ? bind(a, *given->value, "attribute '" + given->name + "' of " + e.text)
                                  : default_value(a));
  }
  return spec.lower(builder_, call);
}

ArgValue ForwardCompiler::bind(const ArgSpec& spec, const Expr& e, const std::string& what) {
  ArgValue v;
  v.present = true;
  v.expr = &e;
  switch (spec.type) {
    case ArgType::Tensor:
      // An optional argument given an absent weight (`else none`) counts as left out.
      v.tensor = spec.optional && e.name_kind == NameKind::Weight ? weight_value(e, true) : tensor_value(e);
      v.present = v.tensor >= 0;
      break;
    case ArgType::Int: v.scalar = Scalar::of_integer(require_integer(scalar(e), e, model_.source, what)); break;
    case ArgType::Float: v.scalar = scalar(e); break;
    case ArgType::Choice: v.choice = choice_index(spec, e); break;
  }
  return v;
}

// A bare choice name, or if(condition, name, name) decided now.
int ForwardCompiler::choice_index(const ArgSpec& spec, const Expr& e) const {
  if (e.kind == ExprKind::Call) return choice_index(spec, *e.args[scalar(*e.args[0]).as_double() != 0 ? 1 : 2]);
  return static_cast<int>(std::find(spec.choices.begin(), spec.choices.end(), e.text) - spec.choices.begin());
}

ArgValue ForwardCompiler::default_value(const ArgSpec& spec) const {
  ArgValue v;
  if (!spec.default_value) return v;  // the lowering computes it
  v.present = true;
  const double d = *spec.default_value;
  if (spec.type == ArgType::Choice) v.choice = static_cast<int>(d);
  v.scalar = spec.type == ArgType::Int ? Scalar::of_integer(static_cast<int64_t>(d)) : Scalar::of_real(d);
  return v;
}

}  // namespace tessera::dsl
