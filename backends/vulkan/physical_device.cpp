// Reading a physical device's properties and features, checking the plugin's
// requirements, and describing the device.
#include "backends/vulkan/physical_device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tessera::vulkan {
namespace {

std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x10DE: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x1010: return "Imagination";
    case 0x106B: return "Apple";
    case VK_VENDOR_ID_MESA: return "Mesa";
    default: break;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", id);
  return std::string("vendor ") + hex;
}

const char* type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

int32_t find_compute_queue(const InstanceFunctions& vk, VkPhysicalDevice device) {
  uint32_t count = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  // Prefer a compute queue without graphics (an async compute queue), else any.
  int32_t any = -1;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return static_cast<int32_t>(i);
    if (any < 0) any = static_cast<int32_t>(i);
  }
  return any;
}

bool has_device_extension(const InstanceFunctions& vk, VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  if (vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()) != VK_SUCCESS) return false;
  return std::any_of(extensions.begin(), extensions.begin() + count,
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

// Whether the integer-dot structures may be chained: core in 1.3, else the extension.
bool has_int8_dot_structures(const PhysicalDevice& d) {
  return d.api_version >= VK_API_VERSION_1_3 || d.int8_dot_extension;
}

// The 1.1 and later property structures (devices below 1.2 are refused anyway).
void query_properties(const InstanceFunctions& vk, PhysicalDevice& d) {
  if (d.api_version < VK_API_VERSION_1_2) return;
  auto props = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  d.subgroup = make<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto maintenance3 = make<VkPhysicalDeviceMaintenance3Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
  d.driver = make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  auto dot = make<VkPhysicalDeviceShaderIntegerDotProductProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES);
  props.pNext = &d.subgroup;
  d.subgroup.pNext = &maintenance3;
  maintenance3.pNext = &d.driver;
  if (has_int8_dot_structures(d)) d.driver.pNext = &dot;
  vk.vkGetPhysicalDeviceProperties2(d.handle, &props);
  d.max_allocation_bytes = maintenance3.maxMemoryAllocationSize;
  d.int8_dot_accelerated = dot.integerDotProduct4x8BitPackedSignedAccelerated == VK_TRUE;
  const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  d.subgroup_arithmetic = (d.subgroup.supportedOperations & needed) == needed &&
                          (d.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  d.subgroup.pNext = nullptr;
  d.driver.pNext = nullptr;
}

void query_features(const InstanceFunctions& vk, PhysicalDevice& d) {
  if (d.api_version < VK_API_VERSION_1_2) return;  // the 1.2 structures are not allowed
  auto features = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  auto v11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto v12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto v13 = make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  auto dot = make<VkPhysicalDeviceShaderIntegerDotProductFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES);
  features.pNext = &v11;
  v11.pNext = &v12;
  if (d.api_version >= VK_API_VERSION_1_3) {
    v12.pNext = &v13;
  } else if (d.int8_dot_extension) {
    v12.pNext = &dot;
  }
  vk.vkGetPhysicalDeviceFeatures2(d.handle, &features);
  d.buffer_device_address = v12.bufferDeviceAddress == VK_TRUE;
  d.storage_buffer_16bit = v11.storageBuffer16BitAccess == VK_TRUE;
  d.shader_float16 = v12.shaderFloat16 == VK_TRUE;
  d.shader_int8 = v12.shaderInt8 == VK_TRUE;
  const bool core_dot = d.api_version >= VK_API_VERSION_1_3;
  d.int8_dot = (core_dot ? v13.shaderIntegerDotProduct : dot.shaderIntegerDotProduct) == VK_TRUE;
  d.int8_dot_extension = d.int8_dot_extension && d.int8_dot;
  if (!d.int8_dot) d.int8_dot_accelerated = false;
}

}  // namespace

PhysicalDevice query_physical_device(const InstanceFunctions& vk, VkPhysicalDevice device,
                                     uint32_t instance_version) {
  PhysicalDevice d;
  d.handle = device;
  auto basic = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  vk.vkGetPhysicalDeviceProperties2(device, &basic);
  d.properties = basic.properties;
  d.api_version = std::min(basic.properties.apiVersion, instance_version);
  d.int8_dot_extension = d.api_version < VK_API_VERSION_1_3 &&
                         has_device_extension(vk, device, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  query_properties(vk, d);
  query_features(vk, d);
  vk.vkGetPhysicalDeviceMemoryProperties(device, &d.memory);
  d.compute_queue_family = find_compute_queue(vk, device);
  return d;
}

std::string missing_requirements(const PhysicalDevice& d) {
  if (d.api_version < VK_API_VERSION_1_2) return "Vulkan 1.2";
  std::string missing;
  const auto need = [&](bool present, const char* what) {
    if (present) return;
    if (!missing.empty()) missing += ", ";
    missing += what;
  };
  need(d.buffer_device_address, "bufferDeviceAddress");
  need(d.storage_buffer_16bit, "storageBuffer16BitAccess");
  need(d.compute_queue_family >= 0, "a compute queue");
  return missing;
}

uint64_t device_local_bytes(const PhysicalDevice& d) {
  uint64_t best = 0;
  for (uint32_t i = 0; i < d.memory.memoryHeapCount; ++i) {
    if (d.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      best = std::max<uint64_t>(best, d.memory.memoryHeaps[i].size);
    }
  }
  return best;
}

int device_type_rank(const PhysicalDevice& d) {
  switch (d.properties.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 4;
    default: return 3;
  }
}

void describe(const PhysicalDevice& d, bool int8_dot_used, tsr_device_info* out) {
  *out = tsr_device_info{};
  const uint32_t v = d.properties.apiVersion;
  const auto yes_no = [](bool b) { return std::string(b ? "yes" : "no"); };
  std::string text = vendor_name(d.properties.vendorID) + ", " + d.driver.driverName + " " + d.driver.driverInfo +
                     ", Vulkan " + std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(v)) + "." + std::to_string(VK_API_VERSION_PATCH(v)) + ", " +
                     type_name(d.properties.deviceType) + ", subgroup " + std::to_string(d.subgroup.subgroupSize) +
                     " (arithmetic " + yes_no(d.subgroup_arithmetic) + "), fp16 " + yes_no(d.shader_float16) +
                     ", 16-bit storage " + yes_no(d.storage_buffer_16bit) + ", int8 dot " + yes_no(d.int8_dot);
  if (d.int8_dot) {
    text += std::string(d.int8_dot_accelerated ? " (accelerated, " : " (not accelerated, ") +
            (int8_dot_used ? "used)" : "not used)");
  }
  copy_text(out->name, sizeof out->name, d.properties.deviceName);
  copy_text(out->description, sizeof out->description, text);
  out->memory_bytes = device_local_bytes(d);
  out->host_visible = 0;  // buffers are reached through buffer_read / buffer_write
}

void copy_text(char* dst, size_t capacity, const std::string& text) {
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

}  // namespace tessera::vulkan
