#include "dsl/op_table.h"

#include "dsl/lowering.h"

namespace tessera::dsl {

int OpSpec::attribute_index(std::string_view wanted) const {
  for (size_t i = 0; i < attributes.size(); ++i) {
    if (attributes[i].name == wanted) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> OpSpec::attribute_names() const {
  std::vector<std::string> names;
  for (const ArgSpec& a : attributes) names.emplace_back(a.name);
  return names;
}

std::string OpSpec::signature() const {
  std::string s = std::string(name) + "(";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + std::string(params[i].name);
  return s + ")";
}

std::string ScalarFunctionSpec::signature() const {
  std::string s = std::string(name) + "(";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + std::string(params[i].name);
  return s + ")";
}

namespace {

// Builders for the rows of the table below.
ArgSpec tensor(std::string_view name) { return ArgSpec{name, ArgType::Tensor, false, std::nullopt, {}, {}}; }
ArgSpec number(std::string_view name) { return ArgSpec{name, ArgType::Float, false, std::nullopt, {}, {}}; }
ArgSpec required(std::string_view name, ArgType type, std::string_view help) {
  return ArgSpec{name, type, true, std::nullopt, {}, help};
}
ArgSpec defaulted(std::string_view name, ArgType type, double value, std::string_view help) {
  return ArgSpec{name, type, false, value, {}, help};
}
// Not given: the lowering computes the value from the operands.
ArgSpec computed(std::string_view name, ArgType type, std::string_view help) {
  return ArgSpec{name, type, false, std::nullopt, {}, help};
}
// The first choice is the default.
ArgSpec choice(std::string_view name, std::vector<std::string_view> choices, std::string_view help) {
  return ArgSpec{name, ArgType::Choice, false, 0.0, std::move(choices), help};
}

}  // namespace

const std::vector<OpSpec>& op_table() {
  using T = ArgType;
  static const std::vector<OpSpec> table = {
      {"embed", {tensor("table")}, {}, lower_embed,
       "rows of table [n_vocab, d] for the step's token ids: [Tokens, d]"},
      {"linear", {tensor("x"), tensor("weight")}, {}, lower_linear,
       "x [rows, K] times weight [M, K] transposed: [rows, M]"},
      {"rms_norm", {tensor("x"), tensor("weight")},
       {defaulted("eps", T::Float, 1e-5, "added to the mean square")},
       lower_rms_norm, "x / sqrt(mean(x^2) + eps) * weight, per row"},
      {"rope", {tensor("x")},
       {required("heads", T::Int, "heads packed in each row"),
        computed("dims", T::Int, "rotated dims per head; default: all"),
        defaulted("theta", T::Float, 10000.0, "frequency base"),
        choice("pairing", {"interleaved", "neox"}, "which dims rotate together"),
        defaulted("scale", T::Float, 1.0, "linear position scaling: positions times scale")},
       lower_rope, "rotary position embedding of x [Tokens, heads * head_dim]"},
      {"attention", {tensor("q"), tensor("k"), tensor("v")},
       {required("heads", T::Int, "query heads"),
        computed("kv_heads", T::Int, "key/value heads; default: heads"),
        computed("scale", T::Float, "score scale; default: 1 / sqrt(head_dim)"),
        defaulted("window", T::Int, 0, "sliding window in tokens; 0: none"),
        defaulted("softcap", T::Float, 0, "score soft cap; 0: none")},
       lower_attention, "causal attention over the paged KV cache; appends k and v to it"},
      {"swiglu", {tensor("gate"), tensor("up")}, {}, lower_swiglu, "silu(gate) * up"},
      {"silu", {tensor("x")}, {}, lower_silu, "x * sigmoid(x)"},
      {"gelu", {tensor("x")}, {}, lower_gelu, "0.5 x (1 + erf(x / sqrt 2))"},
      {"scale", {tensor("x"), number("factor")}, {}, lower_scale, "x * factor"},
      {"outputs", {tensor("x")}, {}, lower_outputs,
       "the rows of x [Tokens, d] whose logits are wanted: [Outputs, d]"},
  };
  return table;
}

const OpSpec* find_op(std::string_view name) {
  for (const OpSpec& op : op_table()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const std::vector<ScalarFunctionSpec>& scalar_function_table() {
  using V = ValueType;
  static const std::vector<ScalarFunctionSpec> table = {
      {"meta", ScalarFunction::Meta, {{"key", V::String}, {"default", V::Scalar}}, 1, true,
       "the number stored under key in the weights file's metadata"},
      {"shape", ScalarFunction::Shape,
       {{"tensor", V::String}, {"axis", V::Scalar}, {"default", V::Scalar}}, 2, true,
       "dimension `axis` (outermost first) of a tensor of the weights file"},
      {"sqrt", ScalarFunction::Sqrt, {{"x", V::Scalar}}, 1, false, "square root (a float)"},
  };
  return table;
}

const ScalarFunctionSpec* find_scalar_function(std::string_view name) {
  for (const ScalarFunctionSpec& fn : scalar_function_table()) {
    if (fn.name == name) return &fn;
  }
  return nullptr;
}

std::vector<std::string> callable_names() {
  std::vector<std::string> names;
  for (const OpSpec& op : op_table()) names.emplace_back(op.name);
  for (const ScalarFunctionSpec& fn : scalar_function_table()) names.emplace_back(fn.name);
  return names;
}

}  // namespace tessera::dsl
