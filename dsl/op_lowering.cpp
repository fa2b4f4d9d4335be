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

}  // namespace

// embed(table [n_vocab, d]) -> [Tokens, d]: the rows of the step's token ids.
int lower_embed(GraphBuilder& b, const OpCall& call) {
  const Shape& table = matrix(b, call, 0);
  const int ids = b.step_input(StepInput::TokenIds);
  return b.add_node(OpKind::GetRows, {}, {call.tensor(0), ids}, {kTokens, table[1]});
}

// linear(x [rows, K], weight [M, K]) -> [rows, M].
int lower_linear(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  const Shape& w = matrix(b, call, 1);
  if (x[1] != w[1]) {
    b.fail(*call.expr, "linear: the input " + arg(b, call, 0) + " has " + std::to_string(x[1]) +
                           " columns but the weight " + arg(b, call, 1) + " expects " + std::to_string(w[1]));
  }
  return b.add_node(OpKind::MatMul, {}, {call.tensor(0), call.tensor(1)}, {x[0], w[0]});
}

// rms_norm(x [rows, C], weight [C]) -> [rows, C].
int lower_rms_norm(GraphBuilder& b, const OpCall& call) {
  const Shape& x = matrix(b, call, 0);
  const Shape& w = b.shape(call.tensor(1));
  if (w != Shape{x[1]}) {
    b.fail(*call.expr, "rms_norm: the weight " + arg(b, call, 1) + " does not match the " +
                           std::to_string(x[1]) + " columns of " + arg(b, call, 0));
  }
  const NormParams params{float_attribute(call, "eps"), 0};
  return b.add_node(OpKind::RmsNorm, params, {call.tensor(0), call.tensor(1)}, x);
}

// rope(x [Tokens, heads * head_dim]) -> same shape, rotated by the tokens' positions.
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
  const RopeParams params{float_attribute(call, "theta"), float_attribute(call, "scale"), heads,
                          dims_per_head, rotated, call.attribute("pairing").choice};
  const int positions = b.step_input(StepInput::Positions);
  return b.add_node(OpKind::Rope, params, {call.tensor(0), positions}, x);
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

int lower_silu(GraphBuilder& b, const OpCall& call) {
  return b.add_node(OpKind::Silu, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_gelu(GraphBuilder& b, const OpCall& call) {
  return b.add_node(OpKind::Gelu, {}, {call.tensor(0)}, b.shape(call.tensor(0)));
}

int lower_scale(GraphBuilder& b, const OpCall& call) {
  const ScaleParams params{static_cast<float>(call.params[1].scalar.as_double())};
  return b.add_node(OpKind::Scale, params, {call.tensor(0)}, b.shape(call.tensor(0)));
}

// outputs(x [Tokens, d]) -> [Outputs, d]: only the rows whose logits are wanted.
int lower_outputs(GraphBuilder& b, const OpCall& call) {
  const Shape& x = token_rows(b, call, 0);
  const int rows = b.step_input(StepInput::OutputRows);
  return b.add_node(OpKind::GetRows, {}, {call.tensor(0), rows}, {sym(SymDim::Outputs), x[1]});
}

int lower_elementwise(GraphBuilder& b, const Expr& e, int lhs, int rhs) {
  const OpKind op = e.op == '+' ? OpKind::Add : OpKind::Mul;
  const Shape& a = b.shape(lhs);
  const Shape& c = b.shape(rhs);
  const auto is_row_of = [](const Shape& row, const Shape& m) {
    return row.size() == 1 && m.size() == 2 && row[0] == m[1];
  };
  if (a == c || is_row_of(c, a)) return b.add_node(op, {}, {lhs, rhs}, a);
  if (is_row_of(a, c)) return b.add_node(op, {}, {rhs, lhs}, c);  // the kernel broadcasts input 1
  b.fail_at_operator(e, "'" + std::string(1, e.op) + "' needs tensors of the same shape (or a row [C] and a [N, C]), but " +
                b.describe(*e.args[0], lhs) + " and " + b.describe(*e.args[1], rhs) + " differ");
}

int lower_scale_by(GraphBuilder& b, int x, double factor) {
  const ScaleParams params{static_cast<float>(factor)};
  return b.add_node(OpKind::Scale, params, {x}, b.shape(x));
}

}  // namespace tessera::dsl
