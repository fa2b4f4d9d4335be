// The ABI's opaque buffer handle as this plugin defines it: a range of device memory.
#pragma once

#include <tessera/plugin_abi.h>

#include "backends/vulkan/memory.h"

struct tsr_buffer_impl {
  tessera::vulkan::Allocation allocation;  // its size is the size the host asked for
};
