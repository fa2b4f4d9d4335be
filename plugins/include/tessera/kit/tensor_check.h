// Validation of a kernel's tensor descriptors before any memory is touched: dtype,
// ndim, shape, whole blocks of block dtypes, the byte extent inside the buffer, and alignment.
// Every failure throws KernelError(TSR_E_INVALID_ARGUMENT) "<op>: <role> <cause>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tessera/plugin_abi.h>

#include <tessera/kit/tensor_info.h>

namespace tessera::kit {

// How many bytes the plugin's buffer `buffer` (never null here) holds. A backend
// passes its own: buffers are opaque handles only it can measure.
using BufferSizeFn = uint64_t (*)(tsr_buffer buffer);

// A tensor descriptor that passed check_tensor.
struct CheckedTensor : TensorInfo {
  tsr_buffer buffer = nullptr;
  uint64_t offset = 0;  // of element 0 in the buffer
  uint64_t bytes = 0;   // the tensor's extent from offset
};

// A tensor in host memory: element 0 at `data`. What a CPU-side kernel works on.
struct HostView : TensorInfo {
  std::byte* data = nullptr;

  template <class T>
  T* as() const { return reinterpret_cast<T*>(data); }
  template <class T>
  T* row(int64_t r) const { return reinterpret_cast<T*>(data + r * row_bytes()); }
};

// For a backend's kernels: checks `t` (present, with a buffer, a known dtype, ndim
// 1..4, no negative dimension, whole blocks per row for the block dtypes, a byte size that does not
// overflow, wholly inside the buffer by `buffer_size`, offset aligned for the dtype).
// `role` names the tensor in messages ("x", "w", "out"). Example message:
//   "matmul: x [3, 8] f32 needs 96 bytes at offset 0 but its buffer holds 64"
CheckedTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role,
                           BufferSizeFn buffer_size);

// For a kernel plugin's kernels (tsr_plugin.extends set): checks `t` as above, except
// the buffer, which belongs to another plugin and which the host has checked, then
// requires host_data, aligned for the dtype:
//   "swiglu: gate is not in host memory (host_data is NULL)"
HostView check_host_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);

// Fails unless `address` (element 0 as the plugin reaches it: a host pointer, a device
// address) is aligned for t's dtype: "silu: x at offset 2 is not aligned to 4 bytes for f32".
void expect_aligned(uint64_t address, uint64_t offset, const TensorInfo& t, std::string_view op,
                    std::string_view role);

// Fails unless t.dtype is `dtype`: "add: a is f16, expected f32".
void expect_dtype(const TensorInfo& t, tsr_dtype dtype, std::string_view op, std::string_view role);
// Fails unless `t`, seen as a matrix, is rows x cols: "matmul: out has shape [2, 4], expected [2, 3]".
void expect_matrix(const TensorInfo& t, int64_t rows, int64_t cols, std::string_view op,
                   std::string_view role);
// Fails unless `t` holds exactly `n` elements in one row or one column:
// "rms_norm: w has shape [3], expected 4 elements".
void expect_vector(const TensorInfo& t, int64_t n, std::string_view op, std::string_view role);

}  // namespace tessera::kit
