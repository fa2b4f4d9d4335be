// Host-side argument checks shared by all Vulkan kernels.
#include "backends/vulkan/ops/tensor_args.h"

#include <limits>

#include "backends/vulkan/buffer.h"

namespace tessera::vulkan {
namespace {

constexpr int64_t kQ8Block = 32;       // elements per q8_0 block
constexpr int64_t kQ8BlockBytes = 34;  // f16 scale + 32 int8

bool known_dtype(tsr_dtype t) { return t >= 0 && t < TSR_DTYPE_COUNT; }

// Bytes of the unit a shader indexes the dtype by (32-bit words, or 16-bit halves).
int64_t unit_bytes(tsr_dtype t) { return (t == TSR_DTYPE_F32 || t == TSR_DTYPE_I32) ? 4 : 2; }

int64_t row_bytes(tsr_dtype t, int64_t cols) {
  if (t == TSR_DTYPE_Q8_0) return cols / kQ8Block * kQ8BlockBytes;
  return cols * unit_bytes(t);
}

}  // namespace

void fail(std::string_view op, const std::string& message) {
  throw KernelError(TSR_E_INVALID_ARGUMENT, std::string(op) + ": " + message);
}

int64_t DeviceTensor::rows() const {
  int64_t r = 1;
  for (int i = 0; i + 1 < ndim; ++i) r *= shape[i];
  return r;
}

std::string_view dtype_label(tsr_dtype t) {
  switch (t) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_BF16: return "bf16";
    case TSR_DTYPE_Q8_0: return "q8_0";
    case TSR_DTYPE_I32: return "i32";
    default: return "unknown";
  }
}

std::string shape_label(const DeviceTensor& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim; ++i) s += (i > 0 ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role) {
  const std::string who(role);
  if (t == nullptr) fail(op, who + " is missing");
  if (t->buffer == nullptr) fail(op, who + " has no buffer");
  if (!known_dtype(t->dtype)) fail(op, who + " has unknown dtype " + std::to_string(t->dtype));
  if (t->ndim < 1 || t->ndim > 4) fail(op, who + " has ndim " + std::to_string(t->ndim) + " (must be 1..4)");
  DeviceTensor v;
  v.dtype = t->dtype;
  v.ndim = t->ndim;
  for (int i = 0; i < v.ndim; ++i) v.shape[i] = t->shape[i];
  for (int i = 0; i < v.ndim; ++i) {
    if (v.shape[i] < 0) fail(op, who + " has a negative dimension in " + shape_label(v));
  }
  if (v.dtype == TSR_DTYPE_Q8_0 && v.cols() % kQ8Block != 0) {
    fail(op, who + " has " + std::to_string(v.cols()) + " columns, not a multiple of the q8_0 block of 32");
  }
  int64_t bytes = row_bytes(v.dtype, v.cols());
  for (int i = 0; i + 1 < v.ndim; ++i) {
    if (__builtin_mul_overflow(bytes, v.shape[i], &bytes)) fail(op, who + " of shape " + shape_label(v) + " is too large");
  }
  const uint64_t capacity = t->buffer->allocation.size;
  if (t->offset > capacity || static_cast<uint64_t>(bytes) > capacity - t->offset) {
    fail(op, who + " " + shape_label(v) + " " + std::string(dtype_label(v.dtype)) + " needs " +
                 std::to_string(bytes) + " bytes at offset " + std::to_string(t->offset) +
                 " but its buffer holds " + std::to_string(capacity));
  }
  const int64_t unit = unit_bytes(v.dtype);
  if (t->offset % static_cast<uint64_t>(unit) != 0) {
    fail(op, who + " at offset " + std::to_string(t->offset) + " is not aligned to " + std::to_string(unit) +
                 " bytes for " + std::string(dtype_label(v.dtype)));
  }
  if (bytes / unit > std::numeric_limits<int32_t>::max()) {
    fail(op, who + " " + shape_label(v) + " has more than 2^31 elements, too many for the Vulkan kernels");
  }
  v.address = t->buffer->allocation.address() + t->offset;
  return v;
}

void expect_input_count(const tsr_op_call& call, int min_inputs, int max_inputs, std::string_view op) {
  if (call.n_inputs < min_inputs || call.n_inputs > max_inputs || call.inputs == nullptr) {
    const std::string expected = min_inputs == max_inputs
                                     ? std::to_string(min_inputs)
                                     : std::to_string(min_inputs) + ".." + std::to_string(max_inputs);
    fail(op, "expects " + expected + " inputs, got " + std::to_string(call.n_inputs));
  }
}

DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role) {
  if (index >= call.n_inputs || call.inputs == nullptr) fail(op, std::string(role) + " is missing");
  return check_tensor(&call.inputs[index], op, role);
}

DeviceTensor output(const tsr_op_call& call, std::string_view op) { return check_tensor(call.output, op, "out"); }

void expect_dtype(const DeviceTensor& t, tsr_dtype dtype, std::string_view op, std::string_view role) {
  if (t.dtype != dtype) {
    fail(op, std::string(role) + " is " + std::string(dtype_label(t.dtype)) + ", expected " +
                 std::string(dtype_label(dtype)));
  }
}

void expect_matrix(const DeviceTensor& t, int64_t rows, int64_t cols, std::string_view op, std::string_view role) {
  if (t.rows() != rows || t.cols() != cols) {
    fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected [" + std::to_string(rows) + ", " +
                 std::to_string(cols) + "]");
  }
}

void expect_vector(const DeviceTensor& t, int64_t n, std::string_view op, std::string_view role) {
  if (t.elements() != n || (t.rows() != 1 && t.cols() != 1)) {
    fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected " + std::to_string(n) + " elements");
  }
}

}  // namespace tessera::vulkan
