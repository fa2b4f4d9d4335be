// Compiling models/llama.tsr for tests: against the in-memory stories260K file, or
// without a file with TinyLlama's hyper-parameters as --set overrides.
#pragma once

#include <algorithm>
#include <map>
#include <string>

#include "dsl/model_definition.h"
#include "fake_weight_file.h"
#include "support/testdata.h"

namespace tessera::test {

inline std::shared_ptr<const dsl::ModelDef> llama_definition() {
  return dsl::parse_model_file(source_path("models/llama.tsr"));
}

inline CompiledModel compile_llama(const WeightFile& file, DType kv_dtype = DType::F32) {
  dsl::CompileOptions options;
  options.weights = &file;
  options.kv_dtype = kv_dtype;
  return dsl::compile_model(*llama_definition(), options);
}

// TinyLlama 1.1B: 22 layers, d_model 2048, 32 heads sharing 4 KV heads, d_ff 5632.
inline std::map<std::string, std::string> tinyllama_overrides() {
  return {{"d_model", "2048"}, {"n_layers", "22"},  {"n_heads", "32"}, {"n_kv_heads", "4"},
          {"d_ff", "5632"},    {"n_vocab", "32000"}};
}

inline CompiledModel compile_tinyllama(DType weight_dtype = DType::F32, DType kv_dtype = DType::F32) {
  dsl::CompileOptions options;
  options.overrides = tinyllama_overrides();
  options.weight_dtype = weight_dtype;
  options.kv_dtype = kv_dtype;
  return dsl::compile_model(*llama_definition(), options);
}

// The 1-based line of models/llama.tsr that contains `text`, or 0.
inline int llama_line_containing(const std::string& text) {
  const auto model = llama_definition();
  const std::string& source = model->source.text;
  int line = 1;
  for (size_t start = 0; start < source.size(); ++line) {
    const size_t end = std::min(source.find('\n', start), source.size());
    if (source.substr(start, end - start).find(text) != std::string::npos) return line;
    start = end + 1;
  }
  return 0;
}

}  // namespace tessera::test
