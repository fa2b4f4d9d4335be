// Device memory of the plugin: a sub-allocator that carves buffers out of a few large
// VkDeviceMemory blocks (each bound to one VkBuffer reached by its device address),
// with a budget checked against the device-local heap; and small host-visible
// buffers for staging and the error word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "backends/vulkan/physical_device.h"
#include "backends/vulkan/range_allocator.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

// One VkDeviceMemory with the VkBuffer that covers all of it.
struct MemoryBlock {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;  // of byte 0
  std::byte* mapped = nullptr;  // host address of byte 0 when the memory is host-visible
  uint64_t size = 0;
  bool dedicated = false;  // holds one large allocation; released when it is freed
  RangeAllocator ranges{0};
};

// A range inside a block.
struct Allocation {
  MemoryBlock* block = nullptr;
  uint64_t offset = 0;  // in the block; a multiple of kAllocationAlignment
  uint64_t size = 0;    // bytes requested
  VkDeviceAddress address() const { return block->address + offset; }
};

// Offsets handed out are multiples of this (covers every minStorageBufferOffsetAlignment
// and keeps tensors on cache-line boundaries).
inline constexpr uint64_t kAllocationAlignment = 256;
// Size of a shared block; requests above half of it get a block of their own.
inline constexpr uint64_t kPoolBlockBytes = uint64_t{64} << 20;

class DeviceMemory {
 public:
  DeviceMemory(const DeviceFunctions& vk, VkDevice device, const PhysicalDevice& physical);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Throws VulkanError(TSR_E_OUT_OF_MEMORY) naming the size and the heap's use when
  // the request does not fit the budget or the driver refuses.
  Allocation allocate(uint64_t size);
  void free(const Allocation& allocation);

 private:
  MemoryBlock& add_block(uint64_t size, bool dedicated);
  void release(std::list<MemoryBlock>::iterator block);

  const DeviceFunctions& vk_;
  VkDevice device_;
  const PhysicalDevice& physical_;
  int32_t memory_type_ = -1;  // chosen at the first block
  // Host-visible and coherent device memory (unified memory, a CPU device): blocks are
  // mapped, and transfers are plain copies through MemoryBlock::mapped.
  bool host_mapped_ = false;
  uint64_t heap_bytes_ = 0;      // the budget: the largest device-local heap
  uint64_t reserved_bytes_ = 0;  // in live blocks
  std::list<MemoryBlock> blocks_;  // stable addresses: allocations point at their block
};

// A host-visible, coherent, persistently mapped buffer (staging, the error word).
class HostBuffer {
 public:
  HostBuffer(const DeviceFunctions& vk, VkDevice device, const PhysicalDevice& physical, uint64_t size);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  VkBuffer buffer() const { return buffer_; }
  std::byte* data() const { return data_; }
  VkDeviceAddress address() const { return address_; }
  uint64_t size() const { return size_; }

 private:
  const DeviceFunctions& vk_;
  VkDevice device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::byte* data_ = nullptr;
  VkDeviceAddress address_ = 0;
  uint64_t size_ = 0;
};

// Bytes as "1.5 GiB", "640 KiB", "12 bytes" for messages.
std::string byte_text(uint64_t bytes);

}  // namespace tessera::vulkan
