// Checked access to a kernel call's tensors and params for the Vulkan kernels: the
// plugin kit's checks (the same messages as the CPU kernels) on the host, before a
// dispatch is recorded; what a tensor holds on the device (indices) is checked by the
// shaders.
#pragma once

#include <string_view>

#include <tessera/kit/call_args.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/tensor_check.h>
#include <tessera/plugin_abi.h>

#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

class VulkanDevice;

using kit::dtype_label;
using kit::expect_dtype;
using kit::expect_input_count;
using kit::expect_matrix;
using kit::expect_vector;
using kit::fail;
using kit::KernelError;
using kit::params_of;
using kit::shape_label;

// The C++ form of a kernel: validates the call, records its dispatches.
using KernelBody = void (*)(VulkanDevice& device, const tsr_op_call& call);

// A validated tensor: the device address of element 0 and the shape seen as a matrix
// of rows() x cols() (outer dimensions flattened; cols is the innermost one).
struct DeviceTensor : kit::TensorInfo {
  VkDeviceAddress address = 0;
};

// kit::check_tensor against the buffer's allocation, plus fewer than 2^31 elements of
// 16 or 32 bits (the shaders index with 32-bit integers).
DeviceTensor check_tensor(const tsr_tensor* t, std::string_view op, std::string_view role);

DeviceTensor input(const tsr_op_call& call, int index, std::string_view op, std::string_view role);
DeviceTensor output(const tsr_op_call& call, std::string_view op);

}  // namespace tessera::vulkan
