// What the plugin knows about one Vulkan physical device: the properties, features
// and memory it reads once, whether the kernels can run on it, and its description
// for `tessera backends`.
#pragma once

#include <cstdint>
#include <string>

#include <tessera/plugin_abi.h>

#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t api_version = 0;  // min(the device's, the instance's)
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceDriverProperties driver{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  // subgroupAdd and friends in compute shaders (basic + arithmetic operations, compute
  // stage): the <shader>_subgroup variants may be loaded.
  bool subgroup_arithmetic = false;
  uint64_t max_allocation_bytes = 0;  // maxMemoryAllocationSize
  VkPhysicalDeviceMemoryProperties memory{};
  bool buffer_device_address = false;
  bool storage_buffer_16bit = false;
  bool shader_float16 = false;
  bool shader_int8 = false;
  bool int8_dot = false;              // shaderIntegerDotProduct
  bool int8_dot_accelerated = false;  // integerDotProduct4x8BitPackedSignedAccelerated
  // Vulkan 1.2 device whose int8 dot comes from VK_KHR_shader_integer_dot_product: the
  // extension must be enabled with the feature (1.3 devices have it in core).
  bool int8_dot_extension = false;
  int32_t compute_queue_family = -1;
};

// Reads everything the plugin uses from `device`; `instance_version` caps the version
// whose structures are queried.
PhysicalDevice query_physical_device(const InstanceFunctions& vk, VkPhysicalDevice device,
                                     uint32_t instance_version);

// What the kernels need and the device lacks, e.g. "bufferDeviceAddress, a compute
// queue"; empty when the device is usable.
std::string missing_requirements(const PhysicalDevice& device);

// Bytes of the largest device-local heap.
uint64_t device_local_bytes(const PhysicalDevice& device);

// Preference order of device types: discrete GPUs first, CPU implementations last.
int device_type_rank(const PhysicalDevice& device);

// name = the driver's device name; description = vendor, driver, Vulkan version, type,
// subgroup size and arithmetic, and the optional features ("subgroup 8 (arithmetic yes),
// fp16 yes, 16-bit storage yes, int8 dot yes (not accelerated, not used)");
// `int8_dot_used` says whether the q8_0 MATMUL takes the int8-dot path.
void describe(const PhysicalDevice& device, bool int8_dot_used, tsr_device_info* out);

// Copies `text` into the fixed-size field `dst`, truncated to capacity - 1 bytes.
void copy_text(char* dst, size_t capacity, const std::string& text);

}  // namespace tessera::vulkan
