// Building a random-weight GGUF model from a compiled definition: the metadata that
// makes it read back through the same definition, a vocabulary, and seeded weights.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor/dtype.h"
#include "core/weights/gguf_writer.h"
#include "dsl/compiler.h"

namespace tessera::cli {

// Writes the hyper-parameters that come from metadata, general.architecture and the
// weights (matrices in `dtype`, vectors in f32) into `writer`. Values are seeded
// uniform: matrices in +-sqrt(3 / columns) (unit variance of a product), vectors 1 +- 0.1.
void add_random_model(const dsl::CompiledModel& model, DType dtype, uint64_t seed, GgufWriter& writer);

// A SentencePiece-style vocabulary of n_vocab tokens: <unk>, <s>, </s>, the 256 byte
// tokens, the printable ASCII characters, then unused fillers. For models without a
// real tokenizer: text round-trips through the byte tokens.
void add_byte_vocab(int64_t n_vocab, GgufWriter& writer);

}  // namespace tessera::cli
