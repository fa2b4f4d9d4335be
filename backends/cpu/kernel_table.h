// The kernels of the CPU plugin, one entry per (op, key dtype): the reference kernel
// (the oracle), the optimised one where it exists, and the ABI entry that runs the
// optimised kernel (or the reference) behind the exception boundary.
#pragma once

#include <span>

#include <tessera/kit/last_error.h>
#include <tessera/plugin_abi.h>

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

struct KernelSpec {
  tsr_op op;
  tsr_dtype dtype;        // key dtype
  const char* name;       // e.g. "cpu.matmul.f16"
  KernelBody reference;   // plain loops, single-threaded
  KernelBody optimised;   // multithreaded and vectorised; nullptr when none
  tsr_kernel_fn entry;    // what the plugin registers (priority 0)
};

// Every kernel of the plugin, in op order.
std::span<const KernelSpec> kernel_specs();

// The same kernels as ABI descriptors, for the plugin table.
std::span<const tsr_kernel_desc> kernel_descs();

// Runs `body` on `device` (a CpuDevice*) behind the kit's kernel guard: any exception
// becomes a status code, the message going to the device's last_error. Fails if
// call->op is not `op`, and without a device (then the message is plugin_error()'s).
tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept;

// The message of failures that have no device (a null device, a failed device_open).
kit::LastError& plugin_error();

}  // namespace tessera::cpu
