// The check of a weights file's numbers (`tessera check`, and `--check-weights` of the
// commands that run a model): every element of every float or block-quantised tensor
// must be finite. A NaN or an infinity in a weight poisons every logit downstream, and
// nothing else would say where it came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/weights/weight_file.h"

namespace tessera {

struct NonFiniteValue {
  std::string tensor;
  int64_t index = 0;  // the first bad element, in row-major order
  float value = 0;    // NaN or +-infinity
};

// The first non-finite element of `t` (i32 tensors hold no floats and are skipped).
std::optional<NonFiniteValue> find_non_finite(const TensorView& t);

// Checks every tensor of `weights`; throws tessera::Error naming the file, the tensor,
// the element and the value for the first bad one:
//   "m.gguf: tensor 'blk.3.ffn_up.weight' element 1029 (row 4, column 5) is NaN: ..."
void check_weights_finite(const WeightFile& weights);

}  // namespace tessera
