// Building a random-weight GGUF model from a compiled definition: the metadata that
// makes it read back through the same definition, a vocabulary, and seeded weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/weights/gguf_writer.h"
#include "dsl/compiler.h"

namespace tessera::cli {

// One weight of a random model: which graph tensor, stored as which dtype, and the
// parameters of its seeded uniform values.
struct RandomWeight {
  const GraphTensor* tensor = nullptr;  // a Weight of the compiled model's graph
  DType dtype = DType::F32;             // matrices: the requested dtype; vectors: f32
  uint64_t seed = 0;                    // per tensor: the model seed mixed with its index
  float center = 0;                     // values are center +- half_width
  float half_width = 0;
};

// The unique weights of `model` (one per file tensor, in graph order) with their seeds:
// matrices in +-sqrt(3 / columns) (unit variance of a product), vectors 1 +- 0.1. The
// same model, dtype and seed give the same list, whatever format is written.
std::vector<RandomWeight> random_weights(const CompiledModel& model, DType dtype, uint64_t seed);

// Rows [first_row, first_row + n_rows) of `w` as f32 ([rows, shape.back()] row-major):
// deterministic per row, so any chunking gives the same numbers.
void random_rows(const RandomWeight& w, int64_t first_row, int64_t n_rows, float* dst);

// The GGUF metadata value of a hyper-parameter: uint32 for non-negative integers
// that fit, int32 for other integers, float32 otherwise.
MetaValue hparam_meta_value(const HParam& h);

// Writes the hyper-parameters that come from metadata, general.architecture and the
// random_weights() of `model` under their file names into `writer`.
void add_random_model(const CompiledModel& model, DType dtype, uint64_t seed, GgufWriter& writer);

// A SentencePiece-style vocabulary of n_vocab tokens: <unk>, <s>, </s>, the 256 byte
// tokens, the printable ASCII characters, then unused fillers. For models without a
// real tokenizer: text round-trips through the byte tokens.
void add_byte_vocab(int64_t n_vocab, GgufWriter& writer);

}  // namespace tessera::cli
