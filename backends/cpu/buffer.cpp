// Aligned host allocations behind the ABI's buffer handle.
#include "backends/cpu/buffer.h"

#include <new>

namespace tessera::cpu {

tsr_buffer buffer_alloc(uint64_t size) {
  // Round up so every allocation is a whole number of cache lines and never empty.
  const uint64_t rounded = (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded < size) return nullptr;  // size near UINT64_MAX
  void* data = ::operator new(rounded == 0 ? kBufferAlignment : rounded,
                              std::align_val_t{kBufferAlignment}, std::nothrow);
  if (!data) return nullptr;
  auto* buffer = new (std::nothrow) tsr_buffer_impl{static_cast<std::byte*>(data), size, true};
  if (!buffer) ::operator delete(data, std::align_val_t{kBufferAlignment});
  return buffer;
}

tsr_buffer buffer_wrap(void* host_ptr, uint64_t size) {
  return new (std::nothrow) tsr_buffer_impl{static_cast<std::byte*>(host_ptr), size, false};
}

void buffer_free(tsr_buffer buffer) {
  if (!buffer) return;
  if (buffer->owned) ::operator delete(buffer->data, std::align_val_t{kBufferAlignment});
  delete buffer;
}

}  // namespace tessera::cpu
