#include "core/graph/graph.h"

#include "core/util/error.h"

namespace tessera {

OpRef GraphNode::op_ref() const {
  if (const auto* custom = std::get_if<CustomOpParams>(&params)) return {OpKind::Custom, custom->name};
  return op;
}

int Graph::add_tensor(GraphTensor t) {
  tensors_.push_back(std::move(t));
  return static_cast<int>(tensors_.size()) - 1;
}

int Graph::add_node(GraphNode n) {
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

int Graph::step_input(StepInput what) const {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].role == TensorRole::StepInput && tensors_[i].input == what) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

uint64_t Graph::kv_bytes_per_token() const {
  uint64_t bytes = 0;
  for (const GraphTensor& t : tensors_) {
    if (t.role == TensorRole::Cache) bytes += static_cast<uint64_t>(dtype_row_bytes(t.dtype, t.shape.back()));
  }
  return bytes;
}

void check_kv_dtype(const Graph& g, DType dtype) {
  if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::Q8_0) {
    throw Error("a KV cache holds f32, f16 or q8_0, not " + std::string(dtype_name(dtype)));
  }
  for (const GraphTensor& t : g.tensors()) {
    if (t.role == TensorRole::Cache && t.shape.back() % dtype_block_elems(dtype) != 0) {
      throw Error("a " + std::string(dtype_name(dtype)) + " KV cache needs rows (n_kv_heads * head_dim) of whole "
                  "blocks of " + std::to_string(dtype_block_elems(dtype)) + ", and '" + t.name + "' has rows of " +
                  std::to_string(t.shape.back()));
    }
  }
}

Graph with_kv_dtype(const Graph& g, DType kv_dtype) {
  check_kv_dtype(g, kv_dtype);
  Graph out = g;
  for (GraphTensor& t : out.tensors()) {
    if (t.role == TensorRole::Cache) t.dtype = kv_dtype;
  }
  return out;
}

}  // namespace tessera
