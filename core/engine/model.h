// A model ready to run: its weights file, the DSL definition compiled against it,
// and its tokenizer. Backend-neutral: sessions place it on a device.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/weight_file.h"
#include "dsl/compiler.h"

namespace tessera {

struct ModelSpec {
  std::string weights_path;
  std::string tokenizer_path;  // llama2.c checkpoints only (tok512.bin)
  std::string arch_path;       // DSL file; empty: <general.architecture>.tsr in model_dirs
  std::vector<std::string> model_dirs;  // where architectures are looked up, in order
  std::map<std::string, std::string> overrides;  // --set name=value
  DType kv_dtype = DType::F32;
};

class Model {
 public:
  // Throws tessera::Error (dsl::DslError for model-file mistakes) naming the file.
  static std::unique_ptr<Model> load(const ModelSpec& spec);

  const WeightFile& weights() const { return *weights_; }
  const dsl::CompiledModel& compiled() const { return compiled_; }
  // Throws when the weights carry no tokenizer Tessera reads (Hugging Face folders).
  const Tokenizer& tokenizer() const;
  bool has_tokenizer() const { return tokenizer_ != nullptr; }
  const std::string& arch_path() const { return arch_path_; }
  // How the architecture file was chosen, for the log ("general.architecture = llama").
  const std::string& arch_reason() const { return arch_reason_; }

  // The model directories tried when no --arch is given: $TESSERA_MODEL_PATH entries
  // are passed by the caller; these are the built-in ones (install and source trees).
  static std::vector<std::string> builtin_model_dirs();
  // Finds <arch>.tsr in `dirs`, else a file whose `model` line lists arch as an alias;
  // throws listing the directories tried.
  static std::string find_architecture(const std::string& arch, const std::vector<std::string>& dirs);

 private:
  std::unique_ptr<WeightFile> weights_;
  dsl::CompiledModel compiled_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::string tokenizer_problem_;  // why a folder's tokenizer.json could not be read
  std::string arch_path_;
  std::string arch_reason_;
};

}  // namespace tessera
