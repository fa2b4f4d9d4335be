// Descriptor checks shared by every kernel: the layout first (dtype, ndim, shape,
// size), then where the bytes are (a buffer's extent, or host memory), then alignment.
#include <tessera/kit/tensor_check.h>

#include <string>

#include <tessera/kit/kernel_error.h>

namespace tessera::kit {
namespace {

struct Layout {
  TensorInfo info;
  int64_t bytes = 0;
};

// Everything that can be checked from the descriptor alone.
Layout check_layout(const tsr_tensor* t, std::string_view op, const std::string& who) {
  if (t == nullptr) fail(op, who + " is missing");
  if (!is_known_dtype(t->dtype)) fail(op, who + " has unknown dtype " + std::to_string(t->dtype));
  if (t->ndim < 1 || t->ndim > 4) {
    fail(op, who + " has ndim " + std::to_string(t->ndim) + " (must be 1..4)");
  }
  Layout l;
  l.info.dtype = t->dtype;
  l.info.ndim = t->ndim;
  for (int i = 0; i < l.info.ndim; ++i) l.info.shape[i] = t->shape[i];
  for (int i = 0; i < l.info.ndim; ++i) {
    if (l.info.shape[i] < 0) fail(op, who + " has a negative dimension in " + shape_label(l.info));
  }
  const DTypeTraits& traits = dtype_traits(l.info.dtype);
  if (l.info.cols() % traits.block_elems != 0) {
    fail(op, who + " has " + std::to_string(l.info.cols()) + " columns, not a multiple of the " +
                 std::string(traits.name) + " block of " + std::to_string(traits.block_elems));
  }
  // Row bytes from the block size, so a huge innermost dimension cannot overflow either.
  const int64_t unit = traits.block_bytes;
  const int64_t units = l.info.cols() / traits.block_elems;
  bool overflow = __builtin_mul_overflow(units, unit, &l.bytes);
  for (int i = 0; i + 1 < l.info.ndim && !overflow; ++i) {
    overflow = __builtin_mul_overflow(l.bytes, l.info.shape[i], &l.bytes);
  }
  if (overflow) fail(op, who + " of shape " + shape_label(l.info) + " is too large");
  return l;
}

}  // namespace

void expect_aligned(uint64_t address, uint64_t offset, const TensorInfo& t, std::string_view op,
                    std::string_view role) {
  const auto align = static_cast<uint64_t>(dtype_alignment(t.dtype));
  if (address % align != 0) {
    fail(op, std::string(role) + " at offset " + std::to_string(offset) + " is not aligned to " +
                 std::to_string(align) + " bytes for " + std::string(dtype_label(t.dtype)));
  }
}

CheckedTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role,
                           BufferSizeFn buffer_size) {
  const std::string who(role);
  if (t != nullptr && t->buffer == nullptr) fail(op, who + " has no buffer");
  const Layout l = check_layout(t, op, who);
  const uint64_t capacity = buffer_size(t->buffer);
  const auto bytes = static_cast<uint64_t>(l.bytes);
  if (t->offset > capacity || bytes > capacity - t->offset) {
    fail(op, who + " " + shape_label(l.info) + " " + std::string(dtype_label(l.info.dtype)) +
                 " needs " + std::to_string(bytes) + " bytes at offset " + std::to_string(t->offset) +
                 " but its buffer holds " + std::to_string(capacity));
  }
  expect_aligned(t->offset, t->offset, l.info, op, role);
  CheckedTensor c;
  static_cast<TensorInfo&>(c) = l.info;
  c.buffer = t->buffer;
  c.offset = t->offset;
  c.bytes = bytes;
  return c;
}

HostView check_host_tensor(const tsr_tensor* t, std::string_view op, std::string_view role) {
  const std::string who(role);
  const Layout l = check_layout(t, op, who);
  if (t->host_data == nullptr) fail(op, who + " is not in host memory (host_data is NULL)");
  expect_aligned(reinterpret_cast<uintptr_t>(t->host_data), t->offset, l.info, op, role);
  HostView v;
  static_cast<TensorInfo&>(v) = l.info;
  v.data = static_cast<std::byte*>(t->host_data);
  return v;
}

void expect_dtype(const TensorInfo& t, tsr_dtype dtype, std::string_view op, std::string_view role) {
  if (t.dtype != dtype) {
    fail(op, std::string(role) + " is " + std::string(dtype_label(t.dtype)) + ", expected " +
                 std::string(dtype_label(dtype)));
  }
}

void expect_matrix(const TensorInfo& t, int64_t rows, int64_t cols, std::string_view op,
                   std::string_view role) {
  if (t.rows() != rows || t.cols() != cols) {
    fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected [" +
                 std::to_string(rows) + ", " + std::to_string(cols) + "]");
  }
}

void expect_vector(const TensorInfo& t, int64_t n, std::string_view op, std::string_view role) {
  if (t.elements() != n || (t.rows() != 1 && t.cols() != 1)) {
    fail(op, std::string(role) + " has shape " + shape_label(t) + ", expected " +
                 std::to_string(n) + " elements");
  }
}

}  // namespace tessera::kit
