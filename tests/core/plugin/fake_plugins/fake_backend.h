// A fake backend for the plugin host's tests: one device whose buffers are host
// memory (at most 1 MiB each) and a few small kernels that really compute.
#pragma once

#include <tessera/plugin_abi.h>

namespace fake {

inline constexpr uint64_t kMaxBufferBytes = 1u << 20;

// A table with every slot filled (wrap_host included), one device, no kernels; each
// test plugin copies it and changes what its case needs.
tsr_plugin base_table();

// add f32 priority 0 "add_f32_reference", add f32 priority 10 "add_f32_fast",
// add i32 "add_i32", scale f32 "scale_f32".
inline constexpr int kGoodKernelCount = 4;
extern const tsr_kernel_desc kGoodKernels[kGoodKernelCount];

// Always fails with TSR_E_INVALID_ARGUMENT and last_error "this kernel always fails".
tsr_status failing_kernel(void* device, const tsr_op_call* call);

}  // namespace fake

// Counters a test reads through dlsym to see what the host left open.
extern "C" TSR_PLUGIN_EXPORT int fake_open_devices(void);
extern "C" TSR_PLUGIN_EXPORT int fake_live_buffers(void);
