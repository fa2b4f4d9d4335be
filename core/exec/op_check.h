// Verify mode's comparison: an op's output on the device under test against the
// reference backend's output for the same inputs, within a tolerance per op and dtype.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/ops/op.h"
#include "core/tensor/dtype.h"

namespace tessera {

// |got - want| <= atol + rtol * max|want| for every element.
struct OpTolerance {
  double rtol = 1e-3;
  double atol = 1e-6;
};

// What the kernels may differ by: f32 arithmetic in another order (1e-3 of the
// output's scale); block-quantized weights, which one backend may dot in int8 against
// a quantized activation and another in floats (0.1); half-precision and int8 KV
// caches, rounded once more (2e-2); row gathers, which dequantize exactly (1e-6).
OpTolerance op_tolerance(OpKind op, DType key_dtype);

struct OutputDifference {
  double max_abs = 0;    // largest |got - want|
  double max_rel = 0;    // max_abs / max|want| (max_abs when want is all zeros)
  double scale = 0;      // max|want|
  int64_t worst = -1;    // element of max_abs
  bool non_finite = false;  // got has NaN/Inf where want is finite
};

OutputDifference compare_outputs(std::span<const float> got, std::span<const float> want);
bool within(const OutputDifference& d, const OpTolerance& t);

}  // namespace tessera
