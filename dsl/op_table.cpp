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
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string p(params[i].name);
    s += (i ? ", " : "") + (params[i].optional ? "[" + p + "]" : p);
  }
  return s + ")";
}

size_t OpSpec::required_params() const {
  size_t n = 0;
  for (const ArgSpec& p : params) n += p.optional ? 0 : 1;
  return n;
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
ArgSpec optional_tensor(std::string_view name) {
  return ArgSpec{name, ArgType::Tensor, false, std::nullopt, {}, {}, true};
}
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
      {"embed_positions", {tensor("table")}, {}, lower_embed_positions,
       "rows of table [n_positions, d] for the tokens' positions: [Tokens, d] (learned positions)"},
      {"linear", {tensor("x"), tensor("weight"), optional_tensor("bias")}, {}, lower_linear,
       "x [rows, K] times weight [M, K] transposed, plus bias [M]: [rows, M]"},
      {"rms_norm", {tensor("x"), tensor("weight")},
       {defaulted("eps", T::Float, 1e-5, "added to the mean square"),
        choice("gain", {"weight", "one_plus_weight"}, "multiply by weight or by 1 + weight"),
        defaulted("heads", T::Int, 1, "normalise each of this many column groups alone (QK-norm)")},
       lower_rms_norm, "x / sqrt(mean(x^2) + eps) * weight, per row (or per head)"},
      {"layer_norm", {tensor("x"), optional_tensor("weight"), optional_tensor("bias")},
       {defaulted("eps", T::Float, 1e-5, "added to the variance"),
        choice("gain", {"weight", "one_plus_weight", "none"},
               "multiply by weight or by 1 + weight; none: no weight (a norm without parameters)"),
        defaulted("heads", T::Int, 1, "normalise each of this many column groups alone")},
       lower_layer_norm, "(x - mean) / sqrt(var + eps) * weight + bias, per row (or per head)"},
      {"rope", {tensor("x"), optional_tensor("freq_factors")},
       {required("heads", T::Int, "heads packed in each row"),
        computed("dims", T::Int, "rotated dims per head; default: all"),
        defaulted("theta", T::Float, 10000.0, "frequency base"),
        choice("pairing", {"interleaved", "neox"}, "which dims rotate together"),
        defaulted("scale", T::Float, 1.0, "linear position scaling: positions times scale"),
        defaulted("yarn_orig_ctx", T::Int, 0, "YaRN: the original context length; 0: no YaRN"),
        defaulted("yarn_beta_fast", T::Float, 32.0, "YaRN: rotations where interpolation starts"),
        defaulted("yarn_beta_slow", T::Float, 1.0, "YaRN: rotations where interpolation is full"),
        defaulted("yarn_attn_factor", T::Float, 1.0, "YaRN: extra magnitude factor"),
        defaulted("llama3_factor", T::Float, 0.0, "Llama 3.1: divisor of the low frequencies; 0: off"),
        defaulted("llama3_low_freq_factor", T::Float, 1.0, "Llama 3.1: wavelengths above orig_ctx / this are divided"),
        defaulted("llama3_high_freq_factor", T::Float, 4.0, "Llama 3.1: wavelengths below orig_ctx / this are kept"),
        defaulted("llama3_orig_ctx", T::Int, 0, "Llama 3.1: the original context length")},
       lower_rope,
       "rotary position embedding of x [Tokens, heads * head_dim]; pair i's angle divided by freq_factors [dims / 2]"},
      {"attention", {tensor("q"), tensor("k"), tensor("v")},
       {required("heads", T::Int, "query heads"),
        computed("kv_heads", T::Int, "key/value heads; default: heads"),
        computed("scale", T::Float, "score scale; default: 1 / sqrt(head_dim)"),
        defaulted("window", T::Int, 0, "sliding window in tokens; 0: none"),
        defaulted("softcap", T::Float, 0, "score soft cap; 0: none"),
        defaulted("alibi", T::Float, 0, "ALiBi maximum bias (8 in the paper); 0: none")},
       lower_attention, "causal attention over the paged KV cache; appends k and v to it"},
      {"swiglu", {tensor("gate"), tensor("up")}, {}, lower_swiglu, "silu(gate) * up"},
      {"geglu", {tensor("gate"), tensor("up")},
       {choice("approximate", {"none", "tanh"}, "GELU exact (erf) or its tanh approximation")},
       lower_geglu, "gelu(gate) * up"},
      {"silu", {tensor("x")}, {}, lower_silu, "x * sigmoid(x)"},
      {"gelu", {tensor("x")},
       {choice("approximate", {"none", "tanh"}, "exact (erf) or the tanh approximation")},
       lower_gelu, "0.5 x (1 + erf(x / sqrt 2))"},
      {"relu", {tensor("x")}, {}, lower_relu, "max(x, 0)"},
      {"relu_sqr", {tensor("x")}, {}, lower_relu_sqr, "max(x, 0)^2"},
      {"softcap", {tensor("x"), number("cap")}, {}, lower_softcap, "cap * tanh(x / cap); cap 0: x (no cap)"},
      {"clamp", {tensor("x"), number("lo"), number("hi")}, {}, lower_clamp, "min(max(x, lo), hi), lo <= hi"},
      {"scale", {tensor("x"), number("factor")}, {}, lower_scale, "x * factor"},
      {"slice", {tensor("x"), number("start"), number("count")},
       {defaulted("groups", T::Int, 1, "repeat over this many column groups (fused per-head q/k/v)"),
        computed("stride", T::Int, "columns between group starts; default: count")},
       lower_slice, "columns start .. start + count of x (of each group): [rows, groups * count]"},
      {"moe_route", {tensor("logits")},
       {required("k", T::Int, "experts chosen per token"),
        choice("gating", {"softmax", "sigmoid"}, "scores to weights: softmax over the experts, or sigmoid each"),
        defaulted("normalize", T::Int, 0, "1: divide the k chosen weights by their sum"),
        defaulted("scale", T::Float, 1.0, "multiplies the weights last")},
       lower_moe_route,
       "a router's scores [Tokens, E] to the k best experts per token and their weights: a route [Tokens, 2k]"},
      {"moe_linear", {tensor("x"), tensor("experts"), tensor("route")}, {}, lower_moe_linear,
       "x [Tokens, K] (or one part per chosen expert, [Tokens, k * K]) times each chosen expert of "
       "experts [E, M, K]: [Tokens, k * M]; reads only the chosen experts"},
      {"moe_combine", {tensor("y"), tensor("route")}, {}, lower_moe_combine,
       "the chosen experts' outputs y [Tokens, k * C] summed with the route's weights: [Tokens, C]"},
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
  using S = ScalarFunctionSpec::Sections;
  static const std::vector<ScalarFunctionSpec> table = {
      {"meta", ScalarFunction::Meta, {{"key", V::String}, {"default", V::Scalar}}, 1, S::HParams, true,
       "the number stored under key in the GGUF metadata (hf: key in config.json), of its default's kind",
       true},
      {"shape", ScalarFunction::Shape,
       {{"tensor", V::String}, {"axis", V::Scalar}, {"default", V::Scalar}}, 2, S::HParams, true,
       "dimension `axis` (outermost first) of a tensor of the weights file"},
      {"has", ScalarFunction::Has, {{"tensor", V::String}}, 1, S::HParamsAndForward, true,
       "1 when the weights file has the tensor (hf: its name in a Hugging Face folder), else 0"},
      {"sqrt", ScalarFunction::Sqrt, {{"x", V::Scalar}}, 1, S::All, false, "square root (a float)"},
      {"pow", ScalarFunction::Pow, {{"x", V::Scalar}, {"y", V::Scalar}}, 2, S::All, false,
       "x to the power y (an integer for integers and y >= 0)"},
      {"round", ScalarFunction::Round, {{"x", V::Scalar}}, 1, S::All, false,
       "the nearest integer (a rotary fraction of a head, a size ratio)"},
      {"if", ScalarFunction::If, {{"condition", V::Scalar}, {"then", V::Scalar}, {"else", V::Scalar}}, 3, S::All,
       false, "`then` when condition is not 0, else `else`; also chooses attribute names and tensors"},
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
