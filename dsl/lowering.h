// Lowering calls to graph nodes: the GraphBuilder the op lowerings add nodes through
// (shapes, step inputs, KV cache tensors, labels) and the lowering of each op.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "dsl/ast.h"
#include "dsl/op_table.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

// One evaluated argument or attribute of a call.
struct ArgValue {
  bool present = false;        // false: attribute not given and without default
  int tensor = -1;             // Tensor: graph tensor id
  Scalar scalar;               // Int/Float (Int ones are integers)
  int choice = -1;             // Choice: index into ArgSpec::choices
  const Expr* expr = nullptr;  // where it was written; nullptr for defaults
};

// A call with its arguments evaluated, as the op's lowering receives it.
struct OpCall {
  const OpSpec* spec = nullptr;
  const Expr* expr = nullptr;        // the call itself
  std::vector<ArgValue> params;      // positional, in spec order
  std::vector<ArgValue> attributes;  // spec.attributes order; defaults filled in

  int tensor(size_t i) const { return params[i].tensor; }
  const ArgValue& attribute(std::string_view name) const;  // must be in the spec
};

class GraphBuilder {
 public:
  GraphBuilder(Graph& graph, const SourceText& source, DType kv_dtype);

  const GraphTensor& tensor(int id) const { return graph_.tensor(id); }
  const SourceText& source() const { return source_; }
  // A copy: adding tensors may move the graph's storage.
  Shape shape(int id) const { return graph_.tensor(id).shape; }
  // "'x + h' [Tokens, 64]": the tensor `id` for messages, by the expression it was `written` as.
  std::string describe(const Expr& written, int id) const;

  // The StepInput tensor fed with `what`, created on first use with its I32 shape.
  int step_input(StepInput what);
  // The Weight tensor `declared` (name, file names, dtype, shape, load conversions):
  // one graph tensor per file tensor, so tied weights are shared.
  int weight(const GraphTensor& declared);
  // Marks the weight `id` (written as `at`) as read in f32 by its kernels although a
  // matrix in shape: f16/bf16 is widened at load, a block format is refused.
  void as_vector_operand(const Expr& at, int id);
  // A node producing a new F32 activation of `shape`; returns its id.
  int add_node(OpKind op, OpParams params, std::vector<int> inputs, Shape shape);
  // A node writing into the existing tensor `output` (KV_WRITE into a cache).
  void add_node_into(OpKind op, OpParams params, std::vector<int> inputs, int output);
  // Starts the next attention layer and returns its ordinal (0, 1, ...).
  int begin_attention_layer() { return attention_layers_++; }
  int attention_layers() const { return attention_layers_; }
  // The K (is_value false) or V cache of attention layer `layer`: [CacheBlocks, BlockSize, width].
  int kv_cache(int layer, bool is_value, int64_t width);

  // Where the nodes being added come from: the statement's label and target, and
  // the layer (loop variable value, -1 outside loops).
  void set_statement(std::string label, std::string target, int layer, SourceLocation loc);
  // The current statement, to come back to after a block call's statements.
  struct StatementMark {
    std::string label;
    std::string origin;
    std::string target;
    int layer = -1;
    int first_tensor = 0;
  };
  StatementMark statement_mark() const { return {label_, origin_, target_, layer_, first_statement_tensor_}; }
  void restore_statement(const StatementMark& m);
  // Renames the activation `id` (made by the current statement) to the statement's target.
  void name_result(int id);
  const std::vector<int>& node_layers() const { return node_layers_; }

  [[noreturn]] void fail(const Expr& at, const std::string& message) const;
  [[noreturn]] void fail_at_operator(const Expr& binary, const std::string& message) const;
  // The value of an Int argument as int32 > 0 (heads, dims); fails at its expression.
  int32_t positive_int32(const OpCall& call, std::string_view attribute) const;

 private:
  int add_activation(Shape shape);

  Graph& graph_;
  const SourceText& source_;
  DType kv_dtype_;
  std::map<std::string, int> weights_by_file_name_;
  std::string label_;
  std::string origin_;  // "file:line:col" of the statement
  std::string target_;
  int layer_ = -1;
  int first_statement_tensor_ = 0;
  int attention_layers_ = 0;
  std::vector<int> node_layers_;
};

// The lowering of each op of the table (op_lowering.cpp).
int lower_embed(GraphBuilder& b, const OpCall& call);
int lower_embed_positions(GraphBuilder& b, const OpCall& call);
int lower_linear(GraphBuilder& b, const OpCall& call);
int lower_rms_norm(GraphBuilder& b, const OpCall& call);
int lower_layer_norm(GraphBuilder& b, const OpCall& call);
int lower_rope(GraphBuilder& b, const OpCall& call);
int lower_attention(GraphBuilder& b, const OpCall& call);
int lower_swiglu(GraphBuilder& b, const OpCall& call);
int lower_geglu(GraphBuilder& b, const OpCall& call);
int lower_silu(GraphBuilder& b, const OpCall& call);
int lower_gelu(GraphBuilder& b, const OpCall& call);
int lower_relu(GraphBuilder& b, const OpCall& call);
int lower_relu_sqr(GraphBuilder& b, const OpCall& call);
int lower_softcap(GraphBuilder& b, const OpCall& call);
int lower_clamp(GraphBuilder& b, const OpCall& call);
int lower_scale(GraphBuilder& b, const OpCall& call);
int lower_slice(GraphBuilder& b, const OpCall& call);
int lower_outputs(GraphBuilder& b, const OpCall& call);
// The mixture-of-experts ops (moe_lowering.cpp).
int lower_moe_route(GraphBuilder& b, const OpCall& call);
int lower_moe_linear(GraphBuilder& b, const OpCall& call);
int lower_moe_combine(GraphBuilder& b, const OpCall& call);

// Tensor operators: a + b (ADD), a - b (SUB), a * b (MUL): same shapes, or a row [C]
// broadcast over a [N, C] (either order). `e` is the Binary expression.
int lower_elementwise(GraphBuilder& b, const Expr& e, int lhs, int rhs);
// x * factor (x / s arrives as factor 1 / s): SCALE.
int lower_scale_by(GraphBuilder& b, int x, double factor);
// x * scale + bias: AFFINE (-x, x + s, x - s, s - x).
int lower_affine(GraphBuilder& b, int x, double scale, double bias);

}  // namespace tessera::dsl
