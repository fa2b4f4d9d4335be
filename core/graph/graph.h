// The op graph a model definition compiles to: typed tensors (weights, per-step
// inputs, KV cache pages, activations) and nodes in execution order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/op.h"
#include "core/tensor/dtype.h"

namespace tessera {

// Dimensions that are only known when a step runs. Shape entries >= 0 are fixed.
enum class SymDim : int64_t {
  Tokens = -1,           // tokens in the step (T)
  Outputs = -2,          // rows whose logits are wanted
  Seqs = -3,             // sequences in the step
  MaxBlocksPerSeq = -4,  // width of the block table
  CacheBlocks = -5,      // KV blocks of the cache
  BlockSize = -6,        // tokens per KV block
};
using Shape = std::vector<int64_t>;
inline constexpr int64_t sym(SymDim d) { return static_cast<int64_t>(d); }

enum class TensorRole { Weight, StepInput, Cache, Activation };

// What the runtime feeds a StepInput tensor with (all I32).
enum class StepInput {
  TokenIds,     // [T]
  Positions,    // [T] absolute position of each token in its sequence
  KvSlots,      // [T] cache row of each token: block * block_size + offset
  TokenSeq,     // [T] sequence index of each token
  BlockTables,  // [Seqs, MaxBlocksPerSeq]
  OutputRows,   // [Outputs] token rows whose logits are computed
};

struct GraphTensor {
  std::string name;  // DSL-level name: "blk.3.wq" for weights, "x" for activations
  TensorRole role = TensorRole::Activation;
  DType dtype = DType::F32;
  Shape shape;

  std::string file_name;  // Weight: the tensor's name in the weights file
  std::string gguf_name;  // Weight: its name in GGUF files (what a converter writes)
  std::string hf_name;    // Weight: its name in Hugging Face folders; "" if the model gives none
  bool transposed = false;  // Weight: the file stores the transpose ([in, out])
  // Weight: the file stores it f16/bf16 and the graph reads an f32 copy (norm gains and
  // biases: vector operands are f32 in every kernel contract).
  bool widened = false;
  // Weight: read by its kernels as f32 values although it has two dimensions (a norm's
  // gain per head, [heads, head_dim]): kept f32 by converters, widened from f16/bf16.
  bool vector_operand = false;
  StepInput input = StepInput::TokenIds;  // StepInput: what feeds it
  int layer = -1;         // Cache: layer index
  bool is_value = false;  // Cache: false = K, true = V
};

struct GraphNode {
  OpKind op = OpKind::Add;
  OpParams params;          // OpKind::Custom: CustomOpParams, naming the declared op
  std::vector<int> inputs;  // tensor ids
  int output = -1;          // tensor id
  std::string label;        // where it came from, e.g. "layer 3: q = linear(h, wq)"
  std::string origin;       // the statement's place, "models/llama.tsr:48:9"; "" if unknown

  // The op its kernel is looked up by: `op`, or the declared op a Custom node calls
  // (a view into params: valid while the node is).
  OpRef op_ref() const;
  // op_name(op), or the declared op's name: "rms_norm", "acme.fused_silu_mul".
  std::string op_label() const { return op_ref_name(op_ref()); }
};

// Params fields filled by the executor at every step, not by the compiler:
// AttentionParams::{block_size, n_seqs, max_blocks_per_seq}, KvWriteParams::block_size.
class Graph {
 public:
  int add_tensor(GraphTensor t);
  int add_node(GraphNode n);

  const std::vector<GraphTensor>& tensors() const { return tensors_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }
  std::vector<GraphTensor>& tensors() { return tensors_; }
  std::vector<GraphNode>& nodes() { return nodes_; }
  const GraphTensor& tensor(int id) const { return tensors_.at(static_cast<size_t>(id)); }

  // The [Outputs, n_vocab] F32 logits tensor.
  int logits() const { return logits_; }
  void set_logits(int id) { logits_ = id; }

  // Id of the StepInput tensor fed with `what`, or -1 if the graph does not use it.
  int step_input(StepInput what) const;

  // Bytes one token takes in the KV cache: one row of every Cache tensor (over all
  // layers, K and V), in the cache's dtype.
  uint64_t kv_bytes_per_token() const;

 private:
  std::vector<GraphTensor> tensors_;
  std::vector<GraphNode> nodes_;
  int logits_ = -1;
};

// Throws tessera::Error unless `g`'s KV cache can hold `kv_dtype`: f32, f16 or q8_0,
// with rows (n_kv_heads * head_dim) of whole blocks.
void check_kv_dtype(const Graph& g, DType kv_dtype);
// A copy of `g` whose KV cache tensors hold `kv_dtype` (the cache is the only thing
// of the graph that depends on it: kv_write writes it, attention reads it); checked
// with check_kv_dtype.
Graph with_kv_dtype(const Graph& g, DType kv_dtype);

}  // namespace tessera
