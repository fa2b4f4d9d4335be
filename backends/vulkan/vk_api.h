// The Vulkan API as this plugin uses it: libvulkan is opened at run time (so the plugin
// loads, and reports "no Vulkan loader", on machines without one), and every entry
// point is reached through the function tables below.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace tessera::vulkan {

// The entry points, as X-macro lists: loader-level ones, those of an instance, and
// those of a device.
#define TSR_VK_GLOBAL_FUNCTIONS(X)            \
  X(vkCreateInstance)                         \
  X(vkEnumerateInstanceExtensionProperties)   \
  X(vkEnumerateInstanceLayerProperties)       \
  X(vkEnumerateInstanceVersion)

#define TSR_VK_INSTANCE_FUNCTIONS(X)          \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

#define TSR_VK_DEBUG_FUNCTIONS(X)             \
  X(vkCreateDebugUtilsMessengerEXT)           \
  X(vkDestroyDebugUtilsMessengerEXT)

#define TSR_VK_DEVICE_FUNCTIONS(X)   \
  X(vkDestroyDevice)                 \
  X(vkGetDeviceQueue)                \
  X(vkDeviceWaitIdle)                \
  X(vkAllocateMemory)                \
  X(vkFreeMemory)                    \
  X(vkMapMemory)                     \
  X(vkCreateBuffer)                  \
  X(vkDestroyBuffer)                 \
  X(vkGetBufferMemoryRequirements)   \
  X(vkBindBufferMemory)              \
  X(vkGetBufferDeviceAddress)        \
  X(vkCreateShaderModule)            \
  X(vkDestroyShaderModule)           \
  X(vkCreatePipelineLayout)          \
  X(vkDestroyPipelineLayout)         \
  X(vkCreateComputePipelines)        \
  X(vkDestroyPipeline)               \
  X(vkCreateCommandPool)             \
  X(vkDestroyCommandPool)            \
  X(vkAllocateCommandBuffers)        \
  X(vkBeginCommandBuffer)            \
  X(vkEndCommandBuffer)              \
  X(vkResetCommandBuffer)            \
  X(vkCmdBindPipeline)               \
  X(vkCmdPushConstants)              \
  X(vkCmdDispatch)                   \
  X(vkCmdPipelineBarrier)            \
  X(vkCmdCopyBuffer)                 \
  X(vkCreateFence)                   \
  X(vkDestroyFence)                  \
  X(vkResetFences)                   \
  X(vkWaitForFences)                 \
  X(vkQueueSubmit)

#define TSR_VK_DECLARE(name) PFN_##name name = nullptr;

struct GlobalFunctions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  TSR_VK_GLOBAL_FUNCTIONS(TSR_VK_DECLARE)
};
struct InstanceFunctions {
  TSR_VK_INSTANCE_FUNCTIONS(TSR_VK_DECLARE)
  TSR_VK_DEBUG_FUNCTIONS(TSR_VK_DECLARE)  // null without VK_EXT_debug_utils
};
struct DeviceFunctions {
  TSR_VK_DEVICE_FUNCTIONS(TSR_VK_DECLARE)
};

#undef TSR_VK_DECLARE

// A zero-initialised Vulkan structure with its sType set.
template <class T>
T make(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

// A failed Vulkan call or an unmet requirement; `status` is the tsr_status to report.
class VulkanError : public std::runtime_error {
 public:
  VulkanError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or "VkResult -1000" for codes it does not know.
std::string result_name(VkResult result);

// Throws VulkanError (TSR_E_OUT_OF_MEMORY for the out-of-memory results, TSR_E_DEVICE
// otherwise) "<what> failed: <result name>" unless result is VK_SUCCESS.
void check(VkResult result, const char* what);

// The Vulkan loader library, opened with dlopen.
class Loader {
 public:
  // Opens libvulkan.so.1 (then libvulkan.so) for the rest of the process (RTLD_NODELETE);
  // loaded() tells whether it worked and error() why not.
  Loader();
  ~Loader();  // drops this reference; the library stays mapped
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  bool loaded() const { return library_ != nullptr; }
  const std::string& error() const { return error_; }
  const GlobalFunctions& global() const { return global_; }

  // Entry points of `instance` (the debug ones only if `debug_utils`).
  InstanceFunctions load_instance(VkInstance instance, bool debug_utils) const;

 private:
  void* library_ = nullptr;
  std::string error_;
  GlobalFunctions global_;
};

// Entry points of `device`; throws VulkanError if one is missing.
DeviceFunctions load_device(const InstanceFunctions& instance, VkDevice device);

}  // namespace tessera::vulkan
