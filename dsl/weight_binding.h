// Binding declared weights to tensors: every declaration (and every layer of a layer
// group) gets its file name, shape and dtype, checked against the weights file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/graph.h"
#include "dsl/ast.h"
#include "dsl/compiler.h"
#include "dsl/hparams.h"

namespace tessera::dsl {

struct BoundWeight {
  std::string graph_name;  // "tok_embd", or "blk.3.wq" for layer 3 of a group
  std::string file_name;   // the tensor that is read: the declared one, or the fallback's
  std::string gguf_name;   // that tensor's GGUF and Hugging Face names ("" without hf:)
  std::string hf_name;
  Shape shape;             // outermost first
  DType dtype = DType::F32;
  bool transposed = false;  // the file stores it [in, out]: the loader transposes it
  bool absent = false;      // `else none` and the file lacks it: only optional arguments take it
  DType file_dtype = DType::F32;  // differs from dtype for f16/bf16 vectors read as f32
};

class WeightBindings {
 public:
  // The binding of `decl` for `layer` (ignored for single tensors). Throws DslError at
  // `at` when the layer is outside the group's range.
  const BoundWeight& get(const WeightDecl& decl, int64_t layer, const Expr& at) const;

 private:
  friend WeightBindings bind_weights(const ModelDef&, const HParamValues&, const CompileOptions&);
  const ModelDef* model_ = nullptr;
  std::vector<std::pair<int64_t, int64_t>> group_ranges_;  // [begin, end) of each layer group
  std::map<std::pair<std::string, int64_t>, BoundWeight> bound_;  // (name, layer or -1)
};

// Binds every declared weight. With a weights file each tensor must exist (or its
// fallback) with the declared shape; without one, weights of two or more dimensions
// get options.weight_dtype and 1-D ones (norm gains, biases) stay F32.
WeightBindings bind_weights(const ModelDef& model, const HParamValues& hparams,
                            const CompileOptions& options);

// "[64, 32]"; symbolic dims print as their names: "[Tokens, 64]".
std::string shape_to_string(const Shape& shape);

}  // namespace tessera::dsl
