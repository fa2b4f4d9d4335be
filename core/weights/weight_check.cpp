#include "core/weights/weight_check.h"

#include <cmath>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/util/error.h"

namespace tessera {

std::optional<NonFiniteValue> find_non_finite(const TensorView& t) {
  if (t.dtype == DType::I32 || t.data == nullptr || t.shape.empty()) return std::nullopt;
  const int64_t cols = t.shape.back();
  const int64_t rows = cols > 0 ? t.n_elements() / cols : 0;
  const int64_t row_bytes = dtype_row_bytes(t.dtype, cols);
  std::vector<float> row(static_cast<size_t>(cols));
  const auto* bytes = static_cast<const uint8_t*>(t.data);
  for (int64_t r = 0; r < rows; ++r) {
    dequantize_row(t.dtype, bytes + r * row_bytes, row.data(), cols);
    for (int64_t c = 0; c < cols; ++c) {
      if (!std::isfinite(row[static_cast<size_t>(c)])) return NonFiniteValue{t.name, r * cols + c, row[static_cast<size_t>(c)]};
    }
  }
  return std::nullopt;
}

void check_weights_finite(const WeightFile& weights) {
  for (const TensorView& t : weights.tensors()) {
    const std::optional<NonFiniteValue> bad = find_non_finite(t);
    if (!bad) continue;
    std::string where;
    if (t.shape.size() >= 2 && t.shape.back() > 0) {
      const int64_t cols = t.shape.back();
      where = " (row " + std::to_string(bad->index / cols) + ", column " + std::to_string(bad->index % cols) + ")";
    }
    throw Error(weights.path() + ": tensor '" + t.name + "' element " + std::to_string(bad->index) + where + " is " +
                (std::isnan(bad->value) ? "NaN" : bad->value > 0 ? "+inf" : "-inf") +
                ": the weights are damaged (every logit computed from them would be too)");
  }
}

}  // namespace tessera
