// The kernels of the Vulkan plugin, one entry per (op, key dtype), and the guard that
// keeps exceptions from crossing the ABI.
#pragma once

#include <span>

#include <tessera/kit/last_error.h>
#include <tessera/plugin_abi.h>

#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {

// The kernels as ABI descriptors (priority 0), in op order.
std::span<const tsr_kernel_desc> kernel_descs();

// Runs `body` on `device` (a VulkanDevice*) behind the kit's kernel guard, mapping
// exceptions (VulkanError keeps its status) to a status code and the device's
// last_error. Fails if call->op is not `op`, and without a device.
tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept;

// The message of failures that have no device (a null device, a failed device_open).
kit::LastError& plugin_error();

}  // namespace tessera::vulkan
