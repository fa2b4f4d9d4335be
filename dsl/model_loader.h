// Loading a model as a user names it: the weights file, the definition its
// architecture names (found in the model folders) or --arch gives, compiled against
// the weights, and the tokenizer the weights carry.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/model.h"
#include "core/ops/custom_op.h"
#include "core/tensor/dtype.h"
#include "core/util/mapped_file.h"

namespace tessera::dsl {

// A folder definitions are looked up in, and where the lookup list got it from, for
// the message that lists the folders tried ("TESSERA_MODEL_PATH", "install prefix").
struct ModelDir {
  ModelDir(std::string path, std::string origin = "") : path(std::move(path)), origin(std::move(origin)) {}
  std::string path;
  std::string origin;  // "" when the caller does not say
};

struct ModelSpec {
  std::string weights_path;
  std::string tokenizer_path;  // llama2.c checkpoints only (tok512.bin)
  std::string arch_path;       // DSL file; empty: <general.architecture>.tsr in model_dirs
  std::vector<ModelDir> model_dirs;  // where architectures are looked up, in order
  std::map<std::string, std::string> overrides;  // --set name=value
  DType kv_dtype = DType::F32;
  FileResidency weights_residency = FileResidency::kMapped;  // how a GGUF or llama2.c file is held
  // The ops the loaded plugins declare (PluginHost::op_catalog()), for definitions that
  // call them; must outlive load_model. nullptr: none.
  const CustomOpCatalog* plugin_ops = nullptr;
};

// Throws tessera::Error (DslError for model-file mistakes) naming the file.
std::unique_ptr<Model> load_model(const ModelSpec& spec);

// The model directories tried when no --arch is given: $TESSERA_MODEL_PATH entries
// are passed by the caller; these are the built-in ones (beside the executable, the
// install prefix, the source tree), each once.
std::vector<ModelDir> builtin_model_dirs();
// Finds <arch>.tsr in `dirs`, else a file whose `model` line lists arch as an alias;
// throws listing each directory tried with its origin, and how to add one
// (TESSERA_MODEL_PATH, a ':'-separated list of folders searched first).
std::string find_architecture(const std::string& arch, const std::vector<ModelDir>& dirs);

}  // namespace tessera::dsl
