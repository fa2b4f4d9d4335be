// The lowering of each DSL op to graph nodes, with the shape rules of each: a call
// whose operands do not fit is refused at the call, with both shapes in the message.
#include <cmath>
#include <limits>

#include "dsl/lowering.h"

namespace tessera::dsl {
namespace {

const int64_t kTokens = sym(SymDim::Tokens);

std::string name_of(const OpCall& call) { return std::string(call.spec->name); }

// Positional argument i as written, with its shape: "'h' [Tokens, 64]".
std::string arg(const GraphBuilder& b, const OpCall& call, size_t i) {
  return b.describe(*call.params[i].expr, call.tensor(i));
}

// Argument i must be a matrix [rows, columns].
Shape matrix(const GraphBuilder& b, const OpCall& call, size_t i) {
  const Shape& s = b.shape(call.tensor(i));
  if (s.size() != 2) {
    b.fail(*call.params[i].expr, name_of(call) + " needs a matrix as '" +
                                     std::string(call.spec->params[i].name) + "', but " + arg(b, call, i) +
                                     " has " + std::to_string(s.size()) + " dimensions");
  }
  return s;
}

// Argument i must be a matrix with one row per token of the step.
Shape token_rows(const GraphBuilder& b, const OpCall& call, size_t i) {
  Shape s = matrix(b, call, i);
  if (s[0] != kTokens) {
    b.fail(*call.params[i].expr,
           name_of(call) + " needs one row per token ([Tokens, ...]), but " + arg(b, call, i) + " is not");
  }
  return s;
}

// Two arguments must have the same shape.
void same_shape(const GraphBuilder& b, const OpCall& call, size_t i, size_t j) {
  if (b.shape(call.tensor(i)) != b.shape(call.tensor(j))) {
    b.fail(*call.expr, name_of(call) + " needs operands of the same shape, but " + arg(b, call, i) +
                           " and " + arg(b, call, j) + " differ");
  }
}

float float_attribute(const OpCall& call, std::string_view name) {
  return static_cast<float>(call.attribute(name).scalar.as_double());
}

// Argument i must be a vector of n entries (a bias or gain); `what` says what n counts.
void vector_of(const GraphBuilder& b, const OpCall& call, size_t i, int64_t n, const std::string& what) {
  if (b.shape(call.tensor(i)) != Shape{n}) {
    b.fail(*call.params[i].expr, name_of(call) + ": " + arg(b, call, i) + " must be a vector [" +
                                     std::to_string(n) + "] matching " + what);
  }
}

// The params of a norm over `columns`, per head when the attribute heads > 1; the
// weight (argument 1), when there is one, has one entry per column of a group, or, per
// head, a gain of each head's own: [heads, columns / heads] (Command R+'s QK-norm).
NormParams norm_params(GraphBuilder& b, const OpCall& call, int64_t columns) {
  const int32_t heads = b.positive_int32(call, "heads");
  if (columns % heads != 0) {
    b.fail(*call.expr, name_of(call) + ": the " + std::to_string(columns) + " columns of " + arg(b, call, 0) +
                           " do not split into " + std::to_string(heads) + " heads");
  }
  const int64_t group = columns / heads;
  const bool per_head = call.params[1].present && heads > 1 && b.shape(call.tensor(1)) == Shape{heads, group};
  if (per_head) {
    for (size_t i = 1; i < call.params.size() && i <= 2; ++i) {
      if (call.params[i].present) b.as_vector_operand(*call.params[i].expr, call.tensor(i));
    }
  } else if (call.params[1].present) {
    vector_of(b, call, 1, group,
              heads > 1 ? "one head (" + std::to_string(columns) + " columns / " + std::to_string(heads) +
                              " heads), or be [" + std::to_string(heads) + ", " + std::to_string(group) +
                              "], a gain per head"
                        : "the " + std::to_string(columns) + " columns of " + arg(b, call, 0));
  }
  NormParams params{};
  params.eps = float_attribute(call, "eps");
  params.weight_plus_one = call.attribute("gain").choice == 1;  // weight, one_plus_weight (, none)
  params.group = heads > 1 ? static_cast<int32_t>(group) : 0;
  return params;
}

// The columns of argument i split into `heads` heads: returns head_dim.
int32_t head_dim(const GraphBuilder& b, const OpCall& call, size_t i, int32_t heads) {
  const int64_t columns = b.shape(call.tensor(i))[1];
  if (columns % heads != 0) {
    b.fail(*call.params[i].expr, name_of(call) + ": the " + std::to_string(columns) + " columns of " +
                                     arg(b, call, i) + " do not split into " + std::to_string(heads) +
                                     " heads");
  }
  return static_cast<int32_t>(columns / heads);
}

// A token count attribute of rope (yarn_orig_ctx, llama3_orig_ctx): 0 or a positive int32.
int32_t rope_context(const GraphBuilder& b, const OpCall& call, std::string_view name) {
  const ArgValue& v = call.attribute(name);
  if (v.scalar.integer < 0 || v.scalar.integer > std::numeric_limits<int32_t>::max()) {
    b.fail(v.expr ? *v.expr : *call.expr, "rope: " + std::string(name) + " must be 0 or a positive token count");
  }
  return static_cast<int32_t>(v.scalar.integer);
}

// YaRN's params, set when yarn_orig_ctx > 0.
void set_rope_yarn(const GraphBuilder& b, const OpCall& call, RopeParams& params) {
  const int32_t orig_ctx = rope_context(b, call, "yarn_orig_ctx");
  if (orig_ctx == 0) return;
  params.ext_factor = 1.0f;
  params.attn_factor = float_attribute(call, "yarn_attn_factor");
  params.beta_fast = float_attribute(call, "yarn_beta_fast");
  params.beta_slow = float_attribute(call, "yarn_beta_slow");
  params.n_ctx_orig = orig_ctx;
}

// Llama 3.1's params, set when llama3_factor > 0. Otherwise the band factors stay 0:
// kernels refuse band factors without a factor.
void set_rope_llama3(const GraphBuilder& b, const OpCall& call, RopeParams& params) {
  const ArgValue& factor = call.attribute("llama3_factor");
  const Expr& at = factor.expr ? *factor.expr : *call.expr;
  const int32_t orig_ctx = rope_context(b, call, "llama3_orig_ctx");
  if (!(factor.scalar.as_double() >= 0)) {
    b.fail(at, "rope: llama3_factor must be 0 (off) or positive, not " + factor.scalar.to_string());
  }
  if (factor.scalar.as_double() == 0) return;
  if (params.ext_factor > 0) b.fail(at, "rope: llama3_factor and yarn_orig_ctx (YaRN) cannot be combined");
  const ArgValue& low = call.attribute("llama3_low_freq_factor");
  const ArgValue& high = call.attribute("llama3_high_freq_factor");
  if (!(low.scalar.as_double() < high.scalar.as_double())) {
    b.fail(low.expr ? *low.expr : high.expr ? *high.expr : at,
           "rope: llama3_low_freq_factor " + low.scalar.to_string() + " must be below llama3_high_freq_factor " +
               high.scalar.to_string());
  }
  if (orig_ctx == 0) b.fail(at, "rope: llama3_factor needs llama3_orig_ctx, the original context length");
  params.llama3_factor = float_attribute(call, "llama3_factor");
  params.llama3_low_freq_factor = float_attribute(call, "llama3_low_freq_factor");
  params.llama3_high_freq_factor = float_attribute(call, "llama3_high_freq_factor");
  params.n_ctx_orig = orig_ctx;
}

// gain: none and the weight go together: a weight left out (or absent: `else none`)
// needs gain: none, which takes none; a bias needs the weight it follows.
void check_layer_norm_gain(const GraphBuilder& b, const OpCall& call) {
  const ArgValue& gain = call.attribute("gain");
  const ArgValue& weight = call.params[1];
  const bool none = gain.choice == 2;
  if (none && weight.present) {
    b.fail(*weight.expr, "layer_norm: gain: none takes no weight, but " + arg(b, call, 1) + " is given");
  }
  const auto written = [&](const Expr& e) { return "'" + std::string(b.source().slice(e.begin, e.end)) + "'"; };
  if (!none && !weight.present) {
    if (!weight.expr) b.fail(*call.expr, "layer_norm without a weight needs gain: none (a norm without parameters)");
    b.fail(*weight.expr, "layer_norm: the weight " + written(*weight.expr) +
                             " is absent (`else none`); a norm without a weight needs gain: none");
  }
  if (call.params[2].present && !weight.present) {
    b.fail(*call.params[2].expr,
           "layer_norm: the bias " + arg(b, call, 2) + " needs a weight, but " + written(*weight.expr) + " is absent");
  }
}

}  // namespace

// embed(table [n_vocab, d]) -> [Tokens, d]: the rows of the step's token ids.
int lower_embed(GraphBuilder& b, const OpCall& call) {
  const Shape& table = matrix(b, call, 0);
  const int ids = b.step_input(StepInput::TokenIds);
  return b.add_node(OpKind::GetRows, {}, {call.tensor(0), ids}, {kTokens, table[1]});
}

// embed_positions(table [n_positions, d]) -> [Tokens, d]: the rows of the tokens' positions.
int lower_embed_positions(GraphBuilder& b, const OpCall& call) {
  const Shape& table = matrix(b, call, 0);
  const int positions = b.step_input(StepInput::Positions);
  return b.add_node(OpKind::GetRows, {}, {call.tensor(0), positions}, {kTokens, table[1]});
}

// linear(x [rows, K], weight [M, K], bias [M]) -> [rows, M].
int lower_linear(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  const Shape& w = matrix(b, call, 1);
  if (x[1] != w[1]) {
    b.fail(*call.expr, "linear: the input " + arg(b, call, 0) + " has " + std::to_string(x[1]) +
                           " columns but the weight " + arg(b, call, 1) + " expects " + std::to_string(w[1]));
  }
  const int product = b.add_node(OpKind::MatMul, {}, {call.tensor(0), call.tensor(1)}, {x[0], w[0]});
  if (!call.params[2].present) return product;
  vector_of(b, call, 2, w[0], "the " + std::to_string(w[0]) + " rows of the weight " + arg(b, call, 1));
  return b.add_node(OpKind::Add, {}, {product, call.tensor(2)}, {x[0], w[0]});
}

// rms_norm(x [rows, C], weight [C, or C / heads or [heads, C / heads]]) -> [rows, C].
int lower_rms_norm(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  const NormParams params = norm_params(b, call, x[1]);
  return b.add_node(OpKind::RmsNorm, params, {call.tensor(0), call.tensor(1)}, x);
}

// layer_norm(x [rows, C], weight [C, or C / heads or [heads, C / heads]], bias [same]) -> [rows, C]; with
// gain: none there is no weight (and so no bias): a norm without parameters.
int lower_layer_norm(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  check_layer_norm_gain(b, call);
  const NormParams params = norm_params(b, call, x[1]);
  std::vector<int> inputs = {call.tensor(0)};
  if (call.params[1].present) inputs.push_back(call.tensor(1));
  if (call.params[2].present) {
    const Shape& w = b.shape(call.tensor(1));
    if (b.shape(call.tensor(2)) != w) {
      b.fail(*call.params[2].expr,
             name_of(call) + ": " + arg(b, call, 2) + " must have the shape of the weight " + arg(b, call, 1));
    }
    inputs.push_back(call.tensor(2));
  }
  return b.add_node(OpKind::LayerNorm, params, std::move(inputs), x);
}

// rope(x [Tokens, heads * head_dim], freq_factors [dims / 2]) -> same shape, rotated by
// the tokens' positions; pair i's angle divided by freq_factors[i] when given.
int lower_rope(GraphBuilder& b, const OpCall& call) {
  const Shape& x = token_rows(b, call, 0);
  const int32_t heads = b.positive_int32(call, "heads");
  const int32_t dims_per_head = head_dim(b, call, 0, heads);
  int32_t rotated = dims_per_head;
  if (call.attribute("dims").present) {
    rotated = b.positive_int32(call, "dims");
    if (rotated % 2 != 0 || rotated > dims_per_head) {
      b.fail(*call.attribute("dims").expr,
             "rope: dims must be even and at most the head size " + std::to_string(dims_per_head) +
                 ", but is " + std::to_string(rotated));
    }
  }
  RopeParams params{};
  params.theta = float_attribute(call, "theta");
  params.freq_scale = float_attribute(call, "scale");
  params.n_heads = heads;
  params.head_dim = dims_per_head;
  params.n_rot = rotated;
  params.pairing = call.attribute("pairing").choice;
  set_rope_yarn(b, call, params);
  set_rope_llama3(b, call, params);
  std::vector<int> inputs = {call.tensor(0), b.step_input(StepInput::Positions)};
  if (call.params[1].present) {
    vector_of(b, call, 1, rotated / 2, "the " + std::to_string(rotated / 2) + " rotated pairs (dims / 2)");
    inputs.push_back(call.tensor(1));
  }
  return b.add_node(OpKind::Rope, params, std::move(inputs), x);
}

// attention(q [Tokens, heads * head_dim], k, v [Tokens, kv_heads * head_dim])
//   -> [Tokens, heads * head_dim]. k and v are first appended to this layer's cache.
int lower_attention(GraphBuilder& b, const OpCall& call) {
  for (size_t i = 0; i < 3; ++i) token_rows(b, call, i);
  const int32_t heads = b.positive_int32(call, "heads");
  const int32_t dim = head_dim(b, call, 0, heads);
  const int32_t kv_heads = call.attribute("kv_heads").present ? b.positive_int32(call, "kv_heads") : heads;
  if (heads % kv_heads != 0) {
    b.fail(*call.expr, "attention: " + std::to_string(heads) + " heads cannot share " +
                           std::to_string(kv_heads) + " kv_heads evenly");
  }
  const int64_t kv_width = int64_t{kv_heads} * dim;
  for (size_t i = 1; i < 3; ++i) {
    if (b.shape(call.tensor(i))[1] != kv_width) {
      b.fail(*call.params[i].expr,
             "attention: " + arg(b, call, i) + " must have kv_heads * head_dim = " + std::to_string(kv_heads) +
                 " * " + std::to_string(dim) + " = " + std::to_string(kv_width) + " columns");
    }
  }
  const ArgValue& scale = call.attribute("scale");
  const ArgValue& window = call.attribute("window");
  if (window.scalar.integer < 0 || window.scalar.integer > std::numeric_limits<int32_t>::max()) {
    b.fail(window.expr ? *window.expr : *call.expr, "attention: window must be 0 or a positive token count");
  }

  const int layer = b.begin_attention_layer();
  const int slots = b.step_input(StepInput::KvSlots);
  const int k_cache = b.kv_cache(layer, false, kv_width);
  const int v_cache = b.kv_cache(layer, true, kv_width);
  const KvWriteParams write{kv_heads, dim, 0};  // block_size: filled by the executor
  b.add_node_into(OpKind::KvWrite, write, {call.tensor(1), slots}, k_cache);
  b.add_node_into(OpKind::KvWrite, write, {call.tensor(2), slots}, v_cache);

  AttentionParams params{};
  params.n_heads = heads;
  params.n_kv_heads = kv_heads;
  params.head_dim = dim;
  params.scale = scale.present ? static_cast<float>(scale.scalar.as_double())
                               : static_cast<float>(1.0 / std::sqrt(static_cast<double>(dim)));
  params.window = static_cast<int32_t>(window.scalar.integer);
  params.softcap = float_attribute(call, "softcap");
  params.alibi_max_bias = float_attribute(call, "alibi");
  if (params.softcap < 0 || params.alibi_max_bias < 0) {
    const ArgValue& bad = params.softcap < 0 ? call.attribute("softcap") : call.attribute("alibi");
    b.fail(*bad.expr, "attention: softcap and alibi must be 0 (off) or positive");
  }
  // block_size, n_seqs and max_blocks_per_seq stay 0: the executor fills them per step.
  const std::vector<int> inputs = {call.tensor(0),
                                   k_cache,
                                   v_cache,
                                   b.step_input(StepInput::Positions),
                                   b.step_input(StepInput::TokenSeq),
                                   b.step_input(StepInput::BlockTables)};
  return b.add_node(OpKind::Attention, params, inputs, {kTokens, int64_t{heads} * dim});
}

// swiglu(gate, up) -> silu(gate) * up, same shape.
int lower_swiglu(GraphBuilder& b, const OpCall& call) {
  same_shape(b, call, 0, 1);
  return b.add_node(OpKind::SwiGlu, {}, {call.tensor(0), call.tensor(1)}, b.shape(call.tensor(0)));
}

// geglu(gate, up) -> gelu(gate) * up, same shape.
int lower_geglu(GraphBuilder& b, const OpCall& call) {
  same_shape(b, call, 0, 1);
  const OpKind gelu = call.attribute("approximate").choice == 1 ? OpKind::GeluTanh : OpKind::Gelu;
  const Shape shape = b.shape(call.tensor(0));
  const int activated = b.add_node(gelu, {}, {call.tensor(0)}, shape);
  return b.add_node(OpKind::Mul, {}, {activated, call.tensor(1)}, shape);
}

int lower_silu(GraphBuilder& b, const OpCall& call) {
  return b.add_node(OpKind::Silu, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_gelu(GraphBuilder& b, const OpCall& call) {
  const OpKind gelu = call.attribute("approximate").choice == 1 ? OpKind::GeluTanh : OpKind::Gelu;
  return b.add_node(gelu, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_relu(GraphBuilder& b, const OpCall& call) {
  return b.add_node(OpKind::Relu, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_relu_sqr(GraphBuilder& b, const OpCall& call) {
  return b.add_node(OpKind::ReluSqr, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

// softcap(x, cap) -> cap * tanh(x / cap); cap 0 is no cap (a file whose cap is null or
// absent): x itself, with no node.
int lower_softcap(GraphBuilder& b, const OpCall& call) {
  const double cap = call.params[1].scalar.as_double();
  if (cap == 0) return call.tensor(0);
  if (!(cap > 0)) {
    b.fail(*call.params[1].expr,
           "softcap: the cap must be 0 (no cap) or positive, not " + call.params[1].scalar.to_string());
  }
  const ScaleParams params{static_cast<float>(cap)};
  return b.add_node(OpKind::SoftCap, params, {call.tensor(0)}, b.shape(call.tensor(0)));
}

// clamp(x, lo, hi) -> min(max(x, lo), hi), same shape.
int lower_clamp(GraphBuilder& b, const OpCall& call) {
  const Scalar& lo = call.params[1].scalar;
  const Scalar& hi = call.params[2].scalar;
  if (!(lo.as_double() <= hi.as_double())) {
    b.fail(*call.params[2].expr, "clamp: hi " + hi.to_string() + " is below lo " + lo.to_string());
  }
  const ClampParams params{static_cast<float>(lo.as_double()), static_cast<float>(hi.as_double())};
  return b.add_node(OpKind::Clamp, params, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_scale(GraphBuilder& b, const OpCall& call) {
  const ScaleParams params{static_cast<float>(call.params[1].scalar.as_double())};
  return b.add_node(OpKind::Scale, params, {call.tensor(0)}, b.shape(call.tensor(0)));
}

// slice(x [rows, C], start, count, groups: g, stride: s) -> [rows, g * count]:
// out[:, k * count + j] = x[:, start + k * s + j].
int lower_slice(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  const auto whole = [&](size_t i, const char* what) {
    const Scalar& v = call.params[i].scalar;
    if (!v.is_integer || v.integer < 0) {
      b.fail(*call.params[i].expr, "slice: " + std::string(what) + " must be a whole number >= 0, not " + v.to_string());
    }
    return v.integer;
  };
  SliceParams params{};
  params.start = whole(1, "start");
  params.count = whole(2, "count");
  params.groups = b.positive_int32(call, "groups");
  params.stride = call.attribute("stride").present ? call.attribute("stride").scalar.integer : params.count;
  int64_t last = 0;  // one past the last column read; a sum past int64 cannot fit either
  if (__builtin_mul_overflow(params.groups - 1, params.stride, &last) ||
      __builtin_add_overflow(last, params.start, &last) || __builtin_add_overflow(last, params.count, &last)) {
    last = std::numeric_limits<int64_t>::max();
  }
  if (params.count == 0 || params.stride < params.count || last > x[1]) {
    b.fail(*call.expr, "slice: columns " + std::to_string(params.start) + " .. " + std::to_string(last) + " of " +
                           std::to_string(params.groups) + " group(s) of " + std::to_string(params.count) +
                           " (stride " + std::to_string(params.stride) + ") do not fit the " + std::to_string(x[1]) +
                           " columns of " + arg(b, call, 0));
  }
  return b.add_node(OpKind::Slice, params, {call.tensor(0)}, {x[0], params.groups * params.count});
}

// outputs(x [Tokens, d]) -> [Outputs, d]: only the rows whose logits are wanted.
int lower_outputs(GraphBuilder& b, const OpCall& call) {
  const Shape& x = token_rows(b, call, 0);
  const int rows = b.step_input(StepInput::OutputRows);
  return b.add_node(OpKind::GetRows, {}, {call.tensor(0), rows}, {sym(SymDim::Outputs), x[1]});
}

}  // namespace tessera::dsl
