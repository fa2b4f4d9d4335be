// Checked access to a kernel call's tensors and params for the Vulkan kernels: shapes,
// dtypes, alignment and byte extents are validated on the host (with the same
// messages as the CPU kernels) before a dispatch is recorded; what a tensor holds on
// the device (indices) is checked by the shaders.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tessera/plugin_abi.h>

#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

class VulkanDevice;

// The failure of a kernel: a status code for the ABI and a message for last_error.
class KernelError : public std::runtime_error {
 public:
  KernelError(tsr_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  tsr_status status() const { return status_; }

 private:
  tsr_status status_;
};

// Throws KernelError(TSR_E_INVALID_ARGUMENT, op + ": " + message).
[[noreturn]] void fail(std::string_view op, const std::string& message);

// The C++ form of a kernel: validates the call, records its dispatches.
using KernelBody = void (*)(VulkanDevice& device, const tsr_op_call& call);

// A validated tensor: the device address of element 0 and the shape seen as a matrix
// of rows() x cols() (outer dimensions flattened; cols is the innermost one).
struct DeviceTensor {
  VkDeviceAddress address = 0;
  tsr_dtype dtype = TSR_DTYPE_F32;
  int32_t ndim = 1;
  int64_t shape[4] = {1, 1, 1, 1};

  int64_t cols() const { return shape[ndim - 1]; }
  int64_t rows() const;
  int64_t elements() const { return rows() * cols(); }
};

std::string_view dtype_label(tsr_dtype t);     // "f32", "f16", ...
std::string shape_label(const DeviceTensor& t);  // "[3, 4]"

// Validates `t`: a buffer, ndim 1..4, no negative dimension, whole q8_0 blocks per row,
// the bytes inside the buffer, the offset aligned for the dtype, and fewer than 2^31
// elements of 16 or 32 bits (the shaders index with 32-bit integers).
DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);

DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
DeviceTensor output(const tsr_op_call& call, std::string_view op);

void expect_input_count(const tsr_op_call& call, int min_inputs, int max_inputs, std::string_view op);
void expect_dtype(const DeviceTensor& t, tsr_dtype dtype, std::string_view op, std::string_view role);
void expect_matrix(const DeviceTensor& t, int64_t rows, int64_t cols, std::string_view op,
                   std::string_view role);
void expect_vector(const DeviceTensor& t, int64_t n, std::string_view op, std::string_view role);

template <class Params>
const Params& params_of(const tsr_op_call& call, std::string_view op) {
  if (call.params == nullptr) fail(op, "params are missing");
  return *static_cast<const Params*>(call.params);
}

}  // namespace tessera::vulkan
