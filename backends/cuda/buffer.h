// A CUDA buffer: device memory from the device's caching allocator.
#pragma once

#include <cstddef>
#include <cstdint>

struct tsr_buffer_impl {
  std::byte* data = nullptr;  // device address
  uint64_t size = 0;          // bytes requested
};
