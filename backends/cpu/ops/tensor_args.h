// Checked access to a kernel call's tensors and params: every kernel validates its
// arguments through these before touching memory, and fails with a KernelError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tessera/plugin_abi.h>

namespace tessera::cpu {

class CpuDevice;

// The failure of a kernel: a status code for the ABI and a message for last_error.
class KernelError : public std::runtime_error {
 public:
  KernelError(tsr_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  tsr_status status() const { return status_; }

 private:
  tsr_status status_;
};

// Throws KernelError(TSR_E_INVALID_ARGUMENT, op + ": " + message).
[[noreturn]] void fail(std::string_view op, const std::string& message);

// The C++ form of a kernel: validates the call, computes, throws KernelError on bad input.
using KernelBody = void (*)(CpuDevice& device, const tsr_op_call& call);

// A validated tensor: its data pointer inside the buffer, and the shape seen as a matrix
// of rows() x cols() (all outer dimensions flattened; cols is the innermost one).
struct TensorView {
  std::byte* data = nullptr;
  tsr_dtype dtype = TSR_DTYPE_F32;
  int32_t ndim = 1;
  int64_t shape[4] = {1, 1, 1, 1};

  int64_t cols() const { return shape[ndim - 1]; }
  int64_t rows() const;
  int64_t elements() const { return rows() * cols(); }
  // Bytes of one row of cols() elements in dtype.
  int64_t row_bytes() const {
    switch (dtype) {
      case TSR_DTYPE_F16:
      case TSR_DTYPE_BF16: return cols() * 2;
      case TSR_DTYPE_Q8_0: return cols() / 32 * 34;  // blocks of 32: f16 scale + 32 int8
      default: return cols() * 4;                      // f32, i32
    }
  }

  template <class T>
  T* as() const { return reinterpret_cast<T*>(data); }
  template <class T>
  T* row(int64_t r) const { return reinterpret_cast<T*>(data + r * row_bytes()); }
};

std::string_view dtype_label(tsr_dtype t);  // "f32", "f16", ...
std::string shape_label(const TensorView& t);  // "[3, 4]"

// Validates `t` (non-null buffer, ndim 1..4, non-negative shape, whole quantisation
// blocks per row, data aligned for its dtype and wholly inside the buffer).
// `role` names the tensor in messages, e.g. "x" or "w".
TensorView check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);

// Input `index` of the call, validated; fails if the call has fewer inputs.
TensorView input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
// The output, validated.
TensorView output(const tsr_op_call& call, std::string_view op);

// Fails unless the call has between min_inputs and max_inputs inputs.
void expect_input_count(const tsr_op_call& call, int min_inputs, int max_inputs, std::string_view op);
// Fails unless t.dtype is `dtype`.
void expect_dtype(const TensorView& t, tsr_dtype dtype, std::string_view op, std::string_view role);
// Fails unless `t`, seen as a matrix, is rows x cols.
void expect_matrix(const TensorView& t, int64_t rows, int64_t cols, std::string_view op,
                   std::string_view role);
// Fails unless `t` holds exactly `n` elements in one row or column (a vector).
void expect_vector(const TensorView& t, int64_t n, std::string_view op, std::string_view role);

// The call's params struct, or a failure when it is missing.
template <class Params>
const Params& params_of(const tsr_op_call& call, std::string_view op) {
  if (call.params == nullptr) fail(op, "params are missing");
  return *static_cast<const Params*>(call.params);
}

}  // namespace tessera::cpu
