// Converting any weights file Tessera reads (a Hugging Face folder above all) into a
// GGUF: the model definition compiled against it decides the tensors, names and layouts.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/tensor/dtype.h"
#include "core/weights/quant_preset.h"
#include "dsl/model_loader.h"

namespace tessera::cli {

struct ConvertRequest {
  std::string source;                   // a file or folder open_weight_file() reads
  std::string arch_path;                // the definition; "" = chosen by the source's architecture
  std::vector<dsl::ModelDir> model_dirs;  // where that choice looks, in order
  // The dtypes of matrices (quant_preset.h); nullopt keeps the source's.
  std::optional<QuantPreset> preset;
  // A GGUF whose tokenizer.* metadata is copied; "" = the source's own, if it has one.
  std::string tokenizer_from;
};

// One tensor as it is written.
struct ConvertedTensor {
  std::string name;  // its GGUF name
  DType from = DType::F32;
  DType to = DType::F32;
  Shape shape;              // as written, [out, in] for matrices
  bool transposed = false;  // the source stored it [in, out]
};

struct ConvertSummary {
  std::string arch_path;    // the definition used
  std::string arch_reason;  // how it was chosen ("model_type = phi", "given with --arch")
  std::string model_name;   // general.architecture written
  bool hf_layout = false;   // tessera.hf_layout = 1 was written
  size_t tensors = 0;
  size_t meta_keys = 0;
};

// Called as each tensor starts being written: its position (from 0) and the count.
using ConvertProgress = std::function<void(size_t index, size_t count, const ConvertedTensor&)>;

// Writes OUTPUT: general.architecture (the definition's model name; for a GGUF source
// its own architecture, which the "{arch}.*" keys are named after), general.name,
// every hyper-parameter that has a GGUF key, tessera.hf_layout = 1 when the source has
// the Hugging Face layout, the tokenizer, and every weight the compiled graph reads
// under its GGUF name, [out, in], in the dtype the preset gives it (vectors in f32), and
// the preset's general.file_type. Throws tessera::Error (dsl::DslError when the
// definition does not fit the source) before anything is written for a bad request,
// e.g. q8_0 for rows that are not whole blocks.
ConvertSummary convert_to_gguf(const ConvertRequest& request, const std::string& output,
                               const ConvertProgress& progress);

}  // namespace tessera::cli
