// Choosing the tokenizer implementation from the weights file's metadata.
#include "core/tokenizer/tokenizer.h"

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/tokenizer/meta_reader.h"
#include "core/tokenizer/spm_tokenizer.h"

namespace tessera {

std::unique_ptr<Tokenizer> make_tokenizer(const WeightFile& file) {
  constexpr std::string_view kModelKey = "tokenizer.ggml.model";
  MetaReader meta(file);
  if (!meta.find(kModelKey)) meta.fail(kModelKey, "is missing: the file has no tokenizer");
  const std::string model = meta.string_or(kModelKey, "");
  if (model == "llama") return std::make_unique<SpmTokenizer>(SpmTokenizer::from_weight_file(file));
  if (model == "gpt2") return std::make_unique<BpeTokenizer>(BpeTokenizer::from_weight_file(file));
  throw Error(file.path() + ": tokenizer model '" + model +
              "' is not supported (Tessera reads 'llama' SentencePiece and 'gpt2' byte-level BPE)");
}

}  // namespace tessera
