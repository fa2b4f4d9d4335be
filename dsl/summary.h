// What `tessera check` reports about a compiled model: parameters, FLOPs per token,
// KV-cache bytes per token, op counts; computed from the graph, so it holds for any model.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dsl/compiler.h"

namespace tessera::dsl {

// An op as the summary counts it: built-in ones in op order, then the declared ones by name.
using OpCountKey = std::pair<OpKind, std::string>;

struct ModelSummary {
  int64_t n_params = 0;          // elements of all weight tensors; a tied weight counts once
  int64_t n_weight_tensors = 0;
  int64_t weight_bytes = 0;      // their storage size in their dtypes
  int64_t context_length = 0;    // the context the attention FLOPs are stated at
  int64_t matmul_flops_per_token = 0;     // 2 * M * K per MATMUL with a weight [M, K]
  int64_t attention_flops_per_token = 0;  // 4 * heads * head_dim * context per attention
  int64_t flops_per_token = 0;            // the sum of the two
  int64_t kv_bytes_per_token = 0;  // one row of every K and V cache: 2 * layers * kv_heads * head_dim * dtype size
  int64_t batch = 1;               // sequences the KV total is stated for
  int64_t kv_bytes_total = 0;      // kv_bytes_per_token * context_length * batch
  int64_t n_nodes = 0;
  std::map<OpCountKey, int> op_counts;      // nodes per op over the whole graph
  int first_layer = -1;                 // the layer ops_per_layer counts; -1 if no loops
  std::map<OpCountKey, int> ops_per_layer;  // nodes per op of that layer
  // Layers grouped by their nodes per op, in the order each shape first appears: one
  // group when every layer computes the same, more where some differ (dense layers
  // between expert ones, layers without RoPE).
  struct LayerGroup {
    std::vector<int> layers;  // ascending
    std::map<OpCountKey, int> ops;
  };
  std::vector<LayerGroup> layer_groups;
};

// Summarises `model`, stating attention FLOPs at `context_length` tokens
// (0: the model's n_ctx) and the KV cache for `batch` sequences of that length.
ModelSummary summarize(const CompiledModel& model, int64_t context_length = 0, int64_t batch = 1);

// The multi-line report `tessera check` prints; compiled against a file, it says how
// many of the file's tensors the definition reads and what it leaves unread.
std::string format_summary(const CompiledModel& model, const ModelSummary& summary);

}  // namespace tessera::dsl
