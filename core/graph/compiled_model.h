// A model definition compiled against its weights: the op graph and what the engine
// and the tools read about it. The DSL makes it (dsl/compiler.h); the core only reads
// it, so nothing in the core depends on the DSL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/tensor/dtype.h"

namespace tessera {

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

// What the weights file a model was compiled against holds that its definition
// leaves unread. compile_model fills it; the tools report it (the core prints nothing).
struct FileCoverage {
  struct Key {
    std::string name;   // "llama.attention.sliding_window"
    std::string value;  // as the file holds it, for messages: "4096"
  };

  bool checked = false;      // false: compiled without a weights file
  int64_t file_tensors = 0;  // tensors in the file
  int64_t used_tensors = 0;  // of them, those a weight of the graph reads
  // The others in file order, except the ones in ignored_buffers: non-parameter
  // buffers some Hugging Face checkpoints save (RoPE's inv_freq, causal masks).
  std::vector<std::string> unused_tensors;
  std::vector<std::string> ignored_buffers;
  // GGUF metadata under "<arch>." that changes the computation, holds a value that
  // matters, and that no meta() of the definition names (dsl/README.md lists them).
  std::vector<Key> unread_keys;
};

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
  FileCoverage coverage;  // what of the weights file the definition leaves unread

  const HParam* find_hparam(std::string_view name) const;  // nullptr if absent
};

}  // namespace tessera
