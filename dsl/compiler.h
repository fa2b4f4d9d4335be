// Compiling a model definition into the op graph: hyper-parameters are evaluated
// (weights file metadata, --set overrides, defaults), weights bound and shape-checked
// against the file, and the forward section unrolled into nodes with inferred shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/compiled_model.h"
#include "core/graph/graph.h"
#include "core/ops/custom_op.h"
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
  // The ops the loaded plugins declare, which `plugin.op(...)` calls may use (must
  // outlive compile_model); nullptr: none, and such a call is an error naming the plugin.
  const CustomOpCatalog* plugin_ops = nullptr;
};

// What compile_model makes (a core type: the engine reads it without the DSL).
using tessera::CompiledModel;
using tessera::HParam;

// GGUF metadata of a file converted from a Hugging Face folder that keeps its tensor
// layouts (q/k rows for split-half RoPE, fused q/k/v grouped per head, norm gains
// without the +1): 1 makes the DSL's `hf` number 1 for it.
inline constexpr std::string_view kHfLayoutKey = "tessera.hf_layout";

// The metadata key naming a weights file's architecture: general.architecture in GGUF,
// model_type in a Hugging Face config.json.
std::string architecture_key(const WeightFile& weights);

// Compiles `model`. Throws DslError for problems in the definition or between the
// definition and the weights file (both point into the .tsr), and tessera::Error for
// bad options (an unknown --set name, a value that is not a number). With a weights
// file, the result's `coverage` says what of the file the definition leaves unread.
CompiledModel compile_model(const ModelDef& model, const CompileOptions& options);

}  // namespace tessera::dsl
