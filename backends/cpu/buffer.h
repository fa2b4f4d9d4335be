// Host-memory buffers of the CPU device: 64-byte-aligned allocations owned by the
// plugin, or zero-copy wrappers around memory the host keeps alive (mmapped weights).
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/plugin_abi.h>

#include "backends/cpu/repacked_weights.h"

// The ABI's opaque buffer handle, defined by this plugin.
struct tsr_buffer_impl {
  std::byte* data;  // first byte; never null (a zero-size allocation still gets a block)
  uint64_t size;    // bytes the host asked for
  bool owned;       // false for wrapped host memory, which is not freed here
  tessera::cpu::RepackedWeights repacked{};  // decode layouts of weights in it
};

namespace tessera::cpu {

inline constexpr size_t kBufferAlignment = 64;  // a cache line, and wide enough for AVX-512

// Allocates `size` bytes aligned to kBufferAlignment; nullptr when out of memory.
tsr_buffer buffer_alloc(uint64_t size);
// Wraps `host_ptr` (not copied, not freed); nullptr only if the handle cannot be allocated.
tsr_buffer buffer_wrap(void* host_ptr, uint64_t size);
// Frees the handle, and the memory when the buffer owns it. Null is ignored.
void buffer_free(tsr_buffer buffer);

}  // namespace tessera::cpu
