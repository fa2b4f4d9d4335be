#include "dsl/forward.h"

#include <algorithm>
#include <utility>

#include "dsl/diagnostics.h"
#include "dsl/hparams.h"
#include "dsl/plugin_op_lowering.h"
#include "dsl/semantic_expr.h"

namespace tessera::dsl {

std::optional<Scalar> ForwardScope::find(std::string_view name) const {
  const auto it = numbers_.find(name);
  if (it != numbers_.end()) return it->second;
  return ValueScope::find(name);
}

// has(name, hf: key) looks the tensor up as shape() does in hparams: the hf: name in a
// Hugging Face folder (none given there: absent), "a|b" alternatives, {placeholders}
// (loop variables and named numbers too); without a weights file nothing is present,
// as optional weights are left out then.
bool ForwardScope::has_tensor(const Expr& call) const {
  const Expr* hf_key = named_value(call, "hf");
  const bool hf = is_hf_folder(options_);
  if (!options_.weights || (hf && !hf_key)) return false;
  const std::string names = expand(hf ? hf_key->text : call.args[0]->text);
  for (size_t begin = 0; begin <= names.size();) {
    const size_t end = std::min(names.find('|', begin), names.size());
    if (options_.weights->find_tensor(names.substr(begin, end - begin))) return true;
    begin = end + 1;
  }
  return false;
}

ForwardCompiler::ForwardCompiler(const ModelDef& model, const HParamValues& hparams,
                                 const WeightBindings& weights, GraphBuilder& builder,
                                 const CompileOptions& options)
    : model_(model),
      weights_(weights),
      builder_(builder),
      plugin_ops_(options.plugin_ops),
      scope_(hparams, options, model.source),
      options_(options) {}

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
    const ForwardScope::Numbers outer = scope_.numbers();
    run_block(s.body);
    // Numbers first named in the body live there: a later loop may use the name.
    std::erase_if(scope_.numbers(), [&](const auto& n) { return !outer.contains(n.first); });
    scope_.pop_loop_var();
  }
}

// In a block the layer is its caller's: the block's own names are not layers. Outside
// blocks it is the outermost loop's index: inner loops repeat steps within a layer.
int64_t ForwardCompiler::current_layer() const {
  return in_block_ ? block_layer_ : scope_.outermost_loop_value();
}

// "layer 3: decoder: h = rms_norm(...)": where a node comes from.
std::string ForwardCompiler::label_of(const Statement& s) const {
  const std::string text = in_block_ ? in_block_->name + ": " + s.text : s.text;
  const int64_t layer = current_layer();
  return layer >= 0 ? "layer " + std::to_string(layer) + ": " + text : text;
}

// A number names its value for what follows (no node); a tensor is lowered.
void ForwardCompiler::run_assignment(const Statement& s) {
  if (s.value->type == ValueType::Scalar) {
    scope_.numbers()[s.target] = scalar(*s.value);
    return;
  }
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
    case ExprKind::Unary: return unary_value(e);
    case ExprKind::Binary: return binary_value(e);
    case ExprKind::Call:
      if (e.text == "if") return tensor_value(chosen(e));  // only the chosen one is lowered
      return call_value(e);
    default: break;
  }
  throw tessera::Error("internal: '" + std::string(model_.source.slice(e.begin, e.end)) +
                       "' is not a tensor expression");
}

// if(condition, a, b) of tensors is decided now: the branch it takes (through nested
// ones), so that an optional argument given an absent weight that way counts as left out.
const Expr& ForwardCompiler::chosen(const Expr& e) const {
  if (e.kind != ExprKind::Call || e.text != "if" || e.type != ValueType::Tensor) return e;
  return chosen(*e.args[scalar(*e.args[0]).as_double() != 0 ? 1 : 2]);
}

int ForwardCompiler::weight_value(const Expr& e, bool may_be_absent) {
  const WeightDecl& decl = *model_.find_weight(e.text);
  int64_t layer = -1;
  if (e.kind == ExprKind::Index) {
    const Expr& index = *e.args[0];
    layer = require_integer(scalar(index), index, model_.source, "the index of '" + e.text + "'");
  }
  BoundWeight w = weights_.get(decl, layer, e);
  if (w.absent && !may_be_absent && !options_.weights) {
    // Without a file no weight is known to be absent: an optional one that the chosen
    // form of the model needs is made like any other (tessera init writes it).
    w.absent = false;
    w.dtype = w.file_dtype = w.shape.size() >= 2 ? options_.weight_dtype : DType::F32;
  }
  if (w.absent) {
    if (may_be_absent) return -1;
    fail_at(model_.source, e.loc,
            "weight '" + e.text + "' ('" + w.file_name + "') is not in the weights file " + options_.weights->path() +
                "; `else none` lets it be absent only where an optional argument takes it, such as the bias of linear");
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

// -x of a tensor: x * -1 + 0.
int ForwardCompiler::unary_value(const Expr& e) { return lower_affine(builder_, tensor_value(*e.args[0]), -1.0, 0.0); }

int ForwardCompiler::binary_value(const Expr& e) {
  const Expr& lhs = *e.args[0];
  const Expr& rhs = *e.args[1];
  if (lhs.type == ValueType::Tensor && rhs.type == ValueType::Tensor) {
    const int a = tensor_value(lhs);
    const int b = tensor_value(rhs);
    return lower_elementwise(builder_, e, a, b);
  }
  return tensor_and_number_value(e);
}

// A tensor and a number: x * s, s * x and x / s scale (SCALE); x + s, s + x, x - s and
// s - x shift (AFFINE).
int ForwardCompiler::tensor_and_number_value(const Expr& e) {
  const bool tensor_first = e.args[0]->type == ValueType::Tensor;
  const int x = tensor_value(*e.args[tensor_first ? 0 : 1]);
  const double s = scalar(*e.args[tensor_first ? 1 : 0]).as_double();
  if (e.op == "+") return lower_affine(builder_, x, 1.0, s);
  if (e.op == "-") return tensor_first ? lower_affine(builder_, x, 1.0, -s) : lower_affine(builder_, x, -1.0, s);
  if (e.op == "/") {
    if (s == 0) {
      fail_at(model_.source, e.op_loc, "division by zero in '" + std::string(model_.source.slice(e.begin, e.end)) + "'");
    }
    return lower_scale_by(builder_, x, 1.0 / s);
  }
  return lower_scale_by(builder_, x, s);
}

// A block call: its arguments are evaluated here, then its body runs with only its
// parameters (and hyper-parameters, weights) in scope; the value is its return.
int ForwardCompiler::block_value(const Expr& e, const BlockDef& block) {
  std::map<std::string, int> tensors;
  ForwardScope::Numbers numbers;  // the number parameters, then the block's named numbers
  for (size_t i = 0; i < block.params.size(); ++i) {
    if (e.args[i]->type == ValueType::Tensor) tensors[block.params[i]] = tensor_value(*e.args[i]);
    else numbers[block.params[i]] = scalar(*e.args[i]);
  }
  const GraphBuilder::StatementMark caller = builder_.statement_mark();
  const int64_t caller_layer = current_layer();
  std::swap(variables_, tensors);
  std::swap(scope_.numbers(), numbers);
  std::map<std::string, const Statement*> caller_assignments;
  std::swap(assigned_by_, caller_assignments);
  const BlockDef* caller_block = std::exchange(in_block_, &block);
  const int64_t saved_layer = std::exchange(block_layer_, caller_layer);

  run_block(block.body);  // all but the return
  const Statement& ret = block.body.back();
  builder_.set_statement(label_of(ret), caller.target, caller.layer, ret.loc);  // the value takes the caller's name
  const int result = tensor_value(*ret.value);

  std::swap(scope_.numbers(), numbers);
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
    const Expr& a = chosen(*e.args[i]);
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
    case ArgType::Tensor: {
      // An optional argument given an absent weight (`else none`) counts as left out.
      const Expr& given = chosen(e);
      v.tensor = spec.optional && given.name_kind == NameKind::Weight ? weight_value(given, true) : tensor_value(given);
      v.present = v.tensor >= 0;
      break;
    }
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
