// Test helpers for direct kernel calls.
#include "host_tensor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "backends/cpu/kernel_table.h"
#include "core/tensor/dtype.h"

namespace tessera::cpu::test {

HostTensor::HostTensor(tsr_dtype dtype, std::vector<int64_t> shape) : storage_(new Storage) {
  if (shape.empty() || shape.size() > 4) throw std::invalid_argument("HostTensor: ndim 1..4");
  desc_.dtype = dtype;
  desc_.ndim = static_cast<int32_t>(shape.size());
  for (int i = 0; i < 4; ++i) desc_.shape[i] = i < desc_.ndim ? shape[i] : 1;
  const int64_t cols = shape.back();
  const int64_t rows = elements() / std::max<int64_t>(cols, 1);
  const int64_t bytes = cols == 0 ? 0 : rows * dtype_row_bytes(static_cast<DType>(dtype), cols);
  storage_->bytes.assign(static_cast<size_t>(bytes), std::byte{0});
  storage_->buffer.data = storage_->bytes.data();
  storage_->buffer.size = static_cast<uint64_t>(bytes);
  storage_->buffer.owned = false;
  desc_.buffer = &storage_->buffer;
  desc_.offset = 0;
}

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int i = 0; i < desc_.ndim; ++i) n *= desc_.shape[i];
  return n;
}

HostTensor HostTensor::f32(std::vector<int64_t> shape, const std::vector<float>& values) {
  return from_f32(TSR_DTYPE_F32, std::move(shape), values);
}

HostTensor HostTensor::i32(std::vector<int64_t> shape, const std::vector<int32_t>& values) {
  HostTensor t(TSR_DTYPE_I32, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.elements()) throw std::invalid_argument("i32 size");
  std::copy(values.begin(), values.end(), reinterpret_cast<int32_t*>(t.bytes()));
  return t;
}

HostTensor HostTensor::from_f32(tsr_dtype dtype, std::vector<int64_t> shape,
                                const std::vector<float>& values) {
  HostTensor t(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.elements()) throw std::invalid_argument("f32 size");
  const int64_t cols = t.desc_.shape[t.desc_.ndim - 1];
  if (cols == 0) return t;
  const int64_t row_bytes = dtype_row_bytes(static_cast<DType>(dtype), cols);
  for (int64_t r = 0; r < t.elements() / cols; ++r) {
    quantize_row(static_cast<DType>(dtype), values.data() + r * cols, t.bytes() + r * row_bytes, cols);
  }
  return t;
}

std::vector<float> HostTensor::to_f32() const {
  std::vector<float> out(static_cast<size_t>(elements()));
  const int64_t cols = desc_.shape[desc_.ndim - 1];
  if (cols == 0) return out;
  const auto dtype = static_cast<DType>(desc_.dtype);
  if (dtype == DType::I32) {
    const auto* p = reinterpret_cast<const int32_t*>(storage_->bytes.data());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
    return out;
  }
  const int64_t row_bytes = dtype_row_bytes(dtype, cols);
  for (int64_t r = 0; r < elements() / cols; ++r) {
    dequantize_row(dtype, storage_->bytes.data() + r * row_bytes, out.data() + r * cols, cols);
  }
  return out;
}

tsr_status run_kernel(CpuDevice& device, KernelBody body, tsr_op op, const void* params,
                      const std::vector<const HostTensor*>& inputs, HostTensor& out) {
  std::vector<tsr_tensor> descs;
  for (const HostTensor* t : inputs) descs.push_back(t->desc());
  const tsr_op_call call{op, params, static_cast<int32_t>(descs.size()), descs.data(), &out.desc()};
  return run_guarded(&device, &call, op, body);
}

std::vector<int32_t> random_ids(size_t n, int32_t bound, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(0, bound - 1);
  std::vector<int32_t> ids(n);
  for (int32_t& v : ids) v = dist(rng);
  return ids;
}

std::vector<float> random_route(int64_t tokens, int64_t k, int32_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> ids(static_cast<size_t>(experts)), route;
  for (int32_t e = 0; e < experts; ++e) ids[static_cast<size_t>(e)] = static_cast<float>(e);
  for (int64_t t = 0; t < tokens; ++t) {
    std::shuffle(ids.begin(), ids.end(), rng);
    route.insert(route.end(), ids.begin(), ids.begin() + k);
    route.insert(route.end(), static_cast<size_t>(k), 1.0f / static_cast<float>(k));
  }
  return route;
}

std::vector<float> random_values(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double max_diff = 0.0, scale = 1e-30;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
    max_diff = std::max(max_diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return max_diff / scale;
}

}  // namespace tessera::cpu::test
