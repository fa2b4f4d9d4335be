#include "core/engine/model.h"

#include "core/util/error.h"

namespace tessera {

Model::Model(std::unique_ptr<WeightFile> weights, CompiledModel compiled, std::unique_ptr<Tokenizer> tokenizer,
             std::string tokenizer_problem, std::string arch_path, std::string arch_reason)
    : weights_(std::move(weights)),
      compiled_(std::move(compiled)),
      tokenizer_(std::move(tokenizer)),
      tokenizer_problem_(std::move(tokenizer_problem)),
      arch_path_(std::move(arch_path)),
      arch_reason_(std::move(arch_reason)) {
  if (tokenizer_ && tokenizer_->n_vocab() > compiled_.n_vocab) {
    throw Error(weights_->path() + ": the tokenizer has " + std::to_string(tokenizer_->n_vocab()) +
                " tokens but the model's output has only " + std::to_string(compiled_.n_vocab));
  }
}

const Tokenizer& Model::tokenizer() const {
  if (!tokenizer_) {
    throw Error(tokenizer_problem_.empty() ? weights_->path() + ": no tokenizer Tessera can read (no tokenizer.json "
                                                                "beside the weights); give token ids, or use a GGUF of the model"
                                           : tokenizer_problem_);
  }
  return *tokenizer_;
}

}  // namespace tessera
