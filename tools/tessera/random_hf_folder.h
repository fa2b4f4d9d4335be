// Writing a random-weight model as a Hugging Face folder: config.json from the hf:
// keys, model.safetensors holding the numbers the random GGUF of the same flags holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/tensor/dtype.h"
#include "dsl/ast.h"
#include "dsl/compiler.h"

namespace tessera::cli {

// Writes FOLDER/config.json (hf_config_json) and FOLDER/model.safetensors: each of
// random_weights(model, dtype, seed) under its hf: name, stored [in, out] where the
// definition declares it transposed. `model` is `def` compiled without a weights file.
// dtype is f32, f16 or bf16 (vectors are f32). Throws tessera::Error, before writing,
// for a weight without an hf: name. Returns the number of tensors written.
size_t write_random_hf_folder(const dsl::ModelDef& def, const CompiledModel& model, DType dtype, uint64_t seed,
                            const std::string& folder);

}  // namespace tessera::cli
