// Checked access to a kernel call's tensors for the CUDA kernels: the plugin kit's
// checks (the same messages as the CPU kernels) on the host, before a launch; the
// device address of each tensor.
#pragma once

#include <cstddef>
#include <string_view>

#include <tessera/kit/call_args.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/tensor_check.h>
#include <tessera/plugin_abi.h>

namespace tessera::cuda {

class CudaDevice;

using kit::expect_dtype;
using kit::expect_input_count;
using kit::expect_matrix;
using kit::fail;
using kit::params_of;
using kit::shape_label;

// The C++ form of a kernel: validates the call, launches on the device's stream.
using KernelBody = void (*)(CudaDevice& device, const tsr_op_call& call);

// A validated tensor: the device address of element 0 and the shape seen as a matrix
// of rows() x cols() (outer dimensions flattened; cols is the innermost one).
struct DeviceTensor : kit::TensorInfo {
  std::byte* data = nullptr;

  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(data);
  }
};

DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);
DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
DeviceTensor output(const tsr_op_call& call, std::string_view op);

}  // namespace tessera::cuda
