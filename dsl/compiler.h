// Compiling a model definition into the op graph: hyper-parameters are evaluated
// (weights file metadata, --set overrides, defaults), weights bound and shape-checked
// against the file, and the forward section unrolled into nodes with inferred shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/tensor/dtype.h"
#include "core/weights/weight_file.h"
#include "dsl/ast.h"
#include "dsl/parse.h"  // compile_model takes what parse_model returns

namespace tessera::dsl {

struct CompileOptions {
  // The file hyper-parameters and weight shapes/dtypes come from; nullptr: none, then
  // hyper-parameters come from `overrides` and defaults, and weights get weight_dtype.
  const WeightFile* weights = nullptr;
  // name -> value of hyper-parameters (`--set name=value`); they win over the file.
  std::map<std::string, std::string> overrides;
  DType weight_dtype = DType::F32;  // dtype of every weight when no file is given
  DType kv_dtype = DType::F32;      // dtype of the KV cache tensors
};

struct HParam {
  std::string name;
  double value = 0;
  bool is_integer = false;
  // The metadata key the value is read from (its definition is `meta("...")`, with
  // {arch} and other placeholders resolved), even when the value came from a default
  // or an override; "" when the definition is something else. A file written with
  // every meta_key and weight shape reads back to the same hyper-parameters.
  std::string meta_key;
  std::string hf_key;  // the same for the hf: key of a Hugging Face config.json
};

// GGUF metadata of a file converted from a Hugging Face folder that keeps its tensor
// layouts (q/k rows for split-half RoPE, fused q/k/v grouped per head, norm gains
// without the +1): 1 makes the DSL's `hf` number 1 for it.
inline constexpr std::string_view kHfLayoutKey = "tessera.hf_layout";

// The metadata key naming a weights file's architecture: general.architecture in GGUF,
// model_type in a Hugging Face config.json.
std::string architecture_key(const WeightFile& weights);

struct CompiledModel {
  std::string name;         // `model NAME`
  std::string source_file;  // the .tsr it came from
  std::string arch;         // what {arch} resolved to
  Graph graph;
  std::vector<HParam> hparams;  // in definition order
  int64_t n_vocab = 0;   // columns of the logits
  int64_t n_ctx = 0;     // the hyper-parameter `n_ctx` if the model defines it, else 0
  int64_t n_layers = 0;  // attention layers, i.e. layers of the KV cache
  DType kv_dtype = DType::F32;
  // For each graph node, the value of the loop variable it was unrolled for (the
  // layer), or -1 for nodes outside loops.
  std::vector<int> node_layers;

  const HParam* find_hparam(std::string_view name) const;  // nullptr if absent
};

// Compiles `model`. Throws DslError for problems in the definition or between the
// definition and the weights file (both point into the .tsr), and tessera::Error for
// bad options (an unknown --set name, a value that is not a number).
CompiledModel compile_model(const ModelDef& model, const CompileOptions& options);

}  // namespace tessera::dsl
