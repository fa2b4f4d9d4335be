#include "dsl/lowering.h"

#include <limits>

#include "dsl/diagnostics.h"
#include "dsl/weight_binding.h"

namespace tessera::dsl {

const ArgValue& OpCall::attribute(std::string_view name) const {
  const int i = spec->attribute_index(name);
  if (i < 0) throw tessera::Error("internal: op " + std::string(spec->name) + " has no attribute " + std::string(name));
  return attributes[static_cast<size_t>(i)];
}

GraphBuilder::GraphBuilder(Graph& graph, const SourceText& source, DType kv_dtype)
    : graph_(graph), source_(source), kv_dtype_(kv_dtype) {}

std::string GraphBuilder::describe(const Expr& written, int id) const {
  return "'" + std::string(source_.slice(written.begin, written.end)) + "' " + shape_to_string(shape(id));
}

int GraphBuilder::step_input(StepInput what) {
  const int existing = graph_.step_input(what);
  if (existing >= 0) return existing;
  GraphTensor t;
  t.role = TensorRole::StepInput;
  t.dtype = DType::I32;
  t.input = what;
  const int64_t tokens = sym(SymDim::Tokens);
  switch (what) {
    case StepInput::TokenIds: t.name = "token_ids"; t.shape = {tokens}; break;
    case StepInput::Positions: t.name = "positions"; t.shape = {tokens}; break;
    case StepInput::KvSlots: t.name = "kv_slots"; t.shape = {tokens}; break;
    case StepInput::TokenSeq: t.name = "token_seq"; t.shape = {tokens}; break;
    case StepInput::BlockTables:
      t.name = "block_tables";
      t.shape = {sym(SymDim::Seqs), sym(SymDim::MaxBlocksPerSeq)};
      break;
    case StepInput::OutputRows: t.name = "output_rows"; t.shape = {sym(SymDim::Outputs)}; break;
  }
  return graph_.add_tensor(std::move(t));
}

int GraphBuilder::weight(const GraphTensor& declared) {
  const auto it = weights_by_file_name_.find(declared.file_name);
  if (it != weights_by_file_name_.end()) return it->second;
  GraphTensor t = declared;
  t.role = TensorRole::Weight;
  const int id = graph_.add_tensor(std::move(t));
  weights_by_file_name_.emplace(declared.file_name, id);
  return id;
}

void GraphBuilder::as_vector_operand(const Expr& at, int id) {
  GraphTensor& t = graph_.tensors()[static_cast<size_t>(id)];
  if (t.role != TensorRole::Weight) return;
  t.vector_operand = true;
  if (t.dtype == DType::F32) return;
  if (t.dtype != DType::F16 && t.dtype != DType::BF16) {
    fail(at, describe(at, id) + " is " + std::string(dtype_name(t.dtype)) +
                 " in the file, but its values are read as f32 (f16 and bf16 are widened at load)");
  }
  t.dtype = DType::F32;
  t.widened = true;
}

int GraphBuilder::add_activation(Shape shape) {
  GraphTensor t;
  t.role = TensorRole::Activation;
  t.dtype = DType::F32;
  t.shape = std::move(shape);
  return graph_.add_tensor(std::move(t));
}

int GraphBuilder::add_node(OpKind op, OpParams params, std::vector<int> inputs, Shape shape) {
  const int out = add_activation(std::move(shape));
  // Intermediate results are named after the statement and the op: "blk.3.q/linear".
  const std::string prefix = layer_ >= 0 ? "blk." + std::to_string(layer_) + "." : "";
  const auto* custom = std::get_if<CustomOpParams>(&params);
  graph_.tensors()[static_cast<size_t>(out)].name =
      prefix + target_ + "/" + (custom ? custom->name : std::string(op_name(op)));
  add_node_into(op, params, std::move(inputs), out);
  return out;
}

void GraphBuilder::add_node_into(OpKind op, OpParams params, std::vector<int> inputs, int output) {
  GraphNode n;
  n.op = op;
  n.params = params;
  n.inputs = std::move(inputs);
  n.output = output;
  n.label = label_;
  n.origin = origin_;
  graph_.add_node(std::move(n));
  node_layers_.push_back(layer_);
}

int GraphBuilder::kv_cache(int layer, bool is_value, int64_t width) {
  GraphTensor t;
  t.name = "kv." + std::to_string(layer) + (is_value ? ".v" : ".k");
  t.role = TensorRole::Cache;
  t.dtype = kv_dtype_;
  t.shape = {sym(SymDim::CacheBlocks), sym(SymDim::BlockSize), width};
  t.layer = layer;
  t.is_value = is_value;
  return graph_.add_tensor(std::move(t));
}

void GraphBuilder::set_statement(std::string label, std::string target, int layer, SourceLocation loc) {
  label_ = std::move(label);
  origin_ = source_.file_at(loc.offset) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
  target_ = std::move(target);
  layer_ = layer;
  first_statement_tensor_ = static_cast<int>(graph_.tensors().size());
}

void GraphBuilder::restore_statement(const StatementMark& m) {
  label_ = m.label;
  origin_ = m.origin;
  target_ = m.target;
  layer_ = m.layer;
  first_statement_tensor_ = m.first_tensor;
}

void GraphBuilder::name_result(int id) {
  GraphTensor& t = graph_.tensors()[static_cast<size_t>(id)];
  if (id < first_statement_tensor_ || t.role != TensorRole::Activation) return;  // an alias
  t.name = (layer_ >= 0 ? "blk." + std::to_string(layer_) + "." : "") + target_;
}

void GraphBuilder::fail(const Expr& at, const std::string& message) const {
  fail_at(source_, at.loc, message);
}

void GraphBuilder::fail_at_operator(const Expr& binary, const std::string& message) const {
  fail_at(source_, binary.op_loc, message);
}

int32_t GraphBuilder::positive_int32(const OpCall& call, std::string_view attribute) const {
  const ArgValue& a = call.attribute(attribute);
  const int64_t v = a.scalar.integer;
  if (v <= 0 || v > std::numeric_limits<int32_t>::max()) {
    fail(a.expr ? *a.expr : *call.expr,
         "attribute '" + std::string(attribute) + "' of " + std::string(call.spec->name) +
             " must be a positive 32-bit integer, but is " + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

}  // namespace tessera::dsl
