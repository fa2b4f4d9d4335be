// A model ready to run: its weights file, the definition compiled against it, and its
// tokenizer. Backend-neutral: sessions place it on a device. Made by the loader
// (dsl/model_loader.h), which finds and compiles the definition; the engine needs
// nothing of the DSL.
#pragma once

#include <memory>
#include <string>

#include "core/graph/compiled_model.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/weight_file.h"

namespace tessera {

class Model {
 public:
  // `tokenizer` null: the weights carry none Tessera reads (`tokenizer_problem` says
  // why when that is known). `arch_path` is the definition compiled, `arch_reason` how
  // it was chosen. Throws when the tokenizer has more tokens than the logits columns.
  Model(std::unique_ptr<WeightFile> weights, CompiledModel compiled, std::unique_ptr<Tokenizer> tokenizer,
        std::string tokenizer_problem, std::string arch_path, std::string arch_reason);

  const WeightFile& weights() const { return *weights_; }
  const CompiledModel& compiled() const { return compiled_; }
  // Throws when the weights carry no tokenizer Tessera reads (Hugging Face folders).
  const Tokenizer& tokenizer() const;
  bool has_tokenizer() const { return tokenizer_ != nullptr; }
  const std::string& arch_path() const { return arch_path_; }
  // How the architecture file was chosen, for the log ("general.architecture = llama").
  const std::string& arch_reason() const { return arch_reason_; }

 private:
  std::unique_ptr<WeightFile> weights_;
  CompiledModel compiled_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::string tokenizer_problem_;  // why a folder's tokenizer.json could not be read
  std::string arch_path_;
  std::string arch_reason_;
};

}  // namespace tessera
