// Device memory blocks, sub-allocation and host-visible buffers.
#include "backends/vulkan/memory.h"

#include <cstdio>

#include <tessera/plugin_abi.h>

namespace tessera::vulkan {
namespace {

constexpr VkBufferUsageFlags kBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                            VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                            VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

// The first memory type allowed by `bits` that has all `required` flags, preferring
// one that also has all `preferred` flags; -1 when none.
int32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& props, uint32_t bits,
                         VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  int32_t fallback = -1;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if (!(bits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return static_cast<int32_t>(i);
    if (fallback < 0) fallback = static_cast<int32_t>(i);
  }
  return fallback;
}

// A buffer of `size` bytes with memory of a type chosen by `choose(memoryTypeBits)`,
// allocated with the device-address flag and bound; the caller owns both.
template <class Choose>
void create_bound_buffer(const DeviceFunctions& vk, VkDevice device, uint64_t size, Choose choose,
                         VkBuffer* buffer, VkDeviceMemory* memory, uint32_t* type) {
  auto info = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = kBufferUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vk.vkCreateBuffer(device, &info, nullptr, buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vk.vkGetBufferMemoryRequirements(device, *buffer, &req);
  const int32_t chosen = choose(req.memoryTypeBits);
  if (chosen < 0) {
    vk.vkDestroyBuffer(device, *buffer, nullptr);
    throw VulkanError(TSR_E_DEVICE, "no suitable Vulkan memory type for a storage buffer");
  }
  auto flags = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  auto alloc = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  alloc.pNext = &flags;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(chosen);
  const VkResult result = vk.vkAllocateMemory(device, &alloc, nullptr, memory);
  if (result != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, *buffer, nullptr);
    check(result, "vkAllocateMemory");
  }
  const VkResult bound = vk.vkBindBufferMemory(device, *buffer, *memory, 0);
  if (bound != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, *buffer, nullptr);
    vk.vkFreeMemory(device, *memory, nullptr);
    check(bound, "vkBindBufferMemory");
  }
  *type = static_cast<uint32_t>(chosen);
}

VkDeviceAddress address_of(const DeviceFunctions& vk, VkDevice device, VkBuffer buffer) {
  auto info = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
  info.buffer = buffer;
  return vk.vkGetBufferDeviceAddress(device, &info);
}

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace

std::string byte_text(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char text[32];
  if (u == 0) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
  }
  return text;
}

DeviceMemory::DeviceMemory(const DeviceFunctions& vk, VkDevice device, const PhysicalDevice& physical)
    : vk_(vk), device_(device), physical_(physical), heap_bytes_(device_local_bytes(physical)) {}

DeviceMemory::~DeviceMemory() {
  while (!blocks_.empty()) release(blocks_.begin());
}

Allocation DeviceMemory::allocate(uint64_t size) {
  const uint64_t needed = round_up(size == 0 ? 1 : size, kAllocationAlignment);
  if (needed <= kPoolBlockBytes / 2) {
    for (MemoryBlock& block : blocks_) {
      if (block.dedicated) continue;
      if (auto offset = block.ranges.allocate(needed, kAllocationAlignment)) {
        return Allocation{&block, *offset, size};
      }
    }
  }
  const bool dedicated = needed > kPoolBlockBytes / 2;
  MemoryBlock& block = add_block(dedicated ? needed : kPoolBlockBytes, dedicated);
  const auto offset = block.ranges.allocate(needed, kAllocationAlignment);
  return Allocation{&block, *offset, size};  // a fresh block always has room
}

void DeviceMemory::free(const Allocation& allocation) {
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
    if (&*it != allocation.block) continue;
    it->ranges.free(allocation.offset);
    if (it->ranges.empty()) release(it);
    return;
  }
}

MemoryBlock& DeviceMemory::add_block(uint64_t size, bool dedicated) {
  const auto refuse = [&](const std::string& why) {
    throw VulkanError(TSR_E_OUT_OF_MEMORY, "cannot reserve " + byte_text(size) + " of device memory: " + why);
  };
  if (heap_bytes_ != 0 && size > heap_bytes_) refuse("the device heap holds " + byte_text(heap_bytes_));
  if (heap_bytes_ != 0 && reserved_bytes_ + size > heap_bytes_) {
    refuse(byte_text(reserved_bytes_) + " of the " + byte_text(heap_bytes_) + " device heap are in use");
  }
  if (physical_.max_allocation_bytes != 0 && size > physical_.max_allocation_bytes) {
    refuse("the device allocates at most " + byte_text(physical_.max_allocation_bytes) + " at once");
  }
  MemoryBlock block;
  block.size = size;
  block.dedicated = dedicated;
  block.ranges = RangeAllocator(size);
  uint32_t type = 0;
  try {
    create_bound_buffer(vk_, device_, size, [&](uint32_t bits) {
      if (memory_type_ < 0 || !(bits & (1u << memory_type_))) {
        // Device-local memory; host-visible and coherent as well where it exists
        // (unified memory), which turns transfers into plain copies.
        const VkMemoryPropertyFlags mapped = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        memory_type_ = find_memory_type(physical_.memory, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, mapped);
        if (memory_type_ < 0) memory_type_ = find_memory_type(physical_.memory, bits, 0, 0);
        host_mapped_ = memory_type_ >= 0 &&
                       (physical_.memory.memoryTypes[memory_type_].propertyFlags & mapped) == mapped;
      }
      return memory_type_;
    }, &block.buffer, &block.memory, &type);
  } catch (const VulkanError& e) {
    if (e.status() == TSR_E_OUT_OF_MEMORY) refuse(std::string("the driver refused (") + e.what() + ")");
    throw;
  }
  block.address = address_of(vk_, device_, block.buffer);
  if (host_mapped_) {
    void* p = nullptr;
    const VkResult mapped = vk_.vkMapMemory(device_, block.memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (mapped != VK_SUCCESS) {
      vk_.vkDestroyBuffer(device_, block.buffer, nullptr);
      vk_.vkFreeMemory(device_, block.memory, nullptr);
      check(mapped, "vkMapMemory");
    }
    block.mapped = static_cast<std::byte*>(p);
  }
  reserved_bytes_ += size;
  blocks_.push_back(std::move(block));
  return blocks_.back();
}

void DeviceMemory::release(std::list<MemoryBlock>::iterator block) {
  vk_.vkDestroyBuffer(device_, block->buffer, nullptr);
  vk_.vkFreeMemory(device_, block->memory, nullptr);  // also unmaps
  reserved_bytes_ -= block->size;
  blocks_.erase(block);
}

HostBuffer::HostBuffer(const DeviceFunctions& vk, VkDevice device, const PhysicalDevice& physical, uint64_t size)
    : vk_(vk), device_(device), size_(size) {
  uint32_t type = 0;
  create_bound_buffer(vk, device, size, [&](uint32_t bits) {
    return find_memory_type(physical.memory, bits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);  // cached: fast host reads
  }, &buffer_, &memory_, &type);
  void* p = nullptr;
  const VkResult mapped = vk.vkMapMemory(device, memory_, 0, VK_WHOLE_SIZE, 0, &p);
  if (mapped != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, buffer_, nullptr);
    vk.vkFreeMemory(device, memory_, nullptr);
    check(mapped, "vkMapMemory");
  }
  data_ = static_cast<std::byte*>(p);
  address_ = address_of(vk, device, buffer_);
}

HostBuffer::~HostBuffer() {
  vk_.vkDestroyBuffer(device_, buffer_, nullptr);
  vk_.vkFreeMemory(device_, memory_, nullptr);
}

}  // namespace tessera::vulkan
