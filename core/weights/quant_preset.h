// Quantisation presets: which dtype each weight matrix of a model gets when a model is
// written "as q4_k_m", "as q4_0", and so on. The mixes follow the GGUF files people
// download (llama.cpp's presets): a base dtype for the matrices, more bits for the output
// projection and, in the _M mixes, for attn_v and ffn_down of the first and last eighth
// of the layers and every third one between. A row that is not a whole number of the
// chosen dtype's blocks falls back to a 32-element format of similar size (q4_k -> q5_0,
// q5_k -> q5_1, q6_k -> q8_0, q2_k/q3_k/iq4_xs -> iq4_nl), then to f16.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor/dtype.h"

namespace tessera {

enum class QuantMix {
  Uniform,  // every matrix the base dtype (f32, f16, bf16, q8_0 and the plain names)
  Small,    // _S: a few more bits where it is cheapest
  Medium,   // _M
  Large,    // _L
};

struct QuantPreset {
  std::string name;  // as given on the command line: "q4_k_m", "q6_k", "f16"
  DType base = DType::F16;
  QuantMix mix = QuantMix::Uniform;
  uint32_t file_type = 1;  // general.file_type of llama.cpp's enum for this preset
};

// Parses a preset name ("q4_k_m", "Q4_K_M", "q4_0", "f16", ...); false if unknown.
bool quant_preset_from_name(std::string_view name, QuantPreset* out);
// "f32, f16, bf16, q8_0, q4_0, ..., q4_k_s, q4_k_m, ...": every name the parser takes.
std::string quant_preset_names();

// A weight matrix as the preset sees it: its GGUF name ("blk.3.ffn_down.weight"), its
// row length and the model's layer count.
struct QuantTarget {
  std::string gguf_name;
  int64_t row_elements = 0;
  int64_t n_layers = 0;
};

// The dtype the preset gives the matrix, its block fallback applied. A preset of one plain
// dtype (f32, f16, bf16, q8_0) has no fallback: a row that does not fit is the writer's
// error to report, since the user asked for exactly that dtype.
DType preset_dtype(const QuantPreset& preset, const QuantTarget& target);

// The layer count of a model from its GGUF tensor names: 1 + the largest N of "blk.N.".
int64_t layer_count_of(const std::vector<std::string>& gguf_names);

}  // namespace tessera
