#include "core/exec/op_check.h"

#include <algorithm>
#include <cmath>

namespace tessera {

OpTolerance op_tolerance(OpKind op, DType key) {
  switch (op) {
    case OpKind::GetRows:
      return {1e-6, 1e-7};
    case OpKind::MatMul:
    case OpKind::MoeMatMul:
    case OpKind::Custom:  // a declared op keyed by a quantised weight may dot it as a matmul does
      return dtype_block_elems(key) > 1 ? OpTolerance{1e-1, 1e-5} : OpTolerance{1e-3, 1e-6};
    case OpKind::KvWrite:
    case OpKind::Attention:
      return key == DType::F32 ? OpTolerance{1e-3, 1e-6} : OpTolerance{2e-2, 1e-5};
    default:
      return {};
  }
}

OutputDifference compare_outputs(std::span<const float> got, std::span<const float> want) {
  OutputDifference d;
  const size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(want[i])) d.scale = std::max(d.scale, static_cast<double>(std::fabs(want[i])));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(want[i])) continue;  // the reference itself overflowed: nothing to hold the op to
    if (!std::isfinite(got[i])) {
      d.non_finite = true;
      if (d.worst < 0) d.worst = static_cast<int64_t>(i);
      continue;
    }
    const double e = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (e > d.max_abs) {
      d.max_abs = e;
      if (!d.non_finite) d.worst = static_cast<int64_t>(i);
    }
  }
  d.max_rel = d.scale > 0 ? d.max_abs / d.scale : d.max_abs;
  return d;
}

bool within(const OutputDifference& d, const OpTolerance& t) {
  return !d.non_finite && d.max_abs <= t.atol + t.rtol * d.scale;
}

}  // namespace tessera
