// Opening the Vulkan loader at run time and filling the function tables.
#include "backends/vulkan/vk_api.h"

#include <dlfcn.h>

#include <tessera/plugin_abi.h>

namespace tessera::vulkan {

std::string result_name(VkResult result) {
  switch (result) {
#define TSR_VK_RESULT(name) \
  case name: return #name;
    TSR_VK_RESULT(VK_SUCCESS)
    TSR_VK_RESULT(VK_NOT_READY)
    TSR_VK_RESULT(VK_TIMEOUT)
    TSR_VK_RESULT(VK_INCOMPLETE)
    TSR_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TSR_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TSR_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TSR_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TSR_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TSR_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TSR_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TSR_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TSR_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TSR_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TSR_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TSR_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TSR_VK_RESULT(VK_ERROR_UNKNOWN)
    TSR_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TSR_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    TSR_VK_RESULT(VK_ERROR_FRAGMENTATION)
    TSR_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
#undef TSR_VK_RESULT
    default: return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

void check(VkResult result, const char* what) {
  if (result == VK_SUCCESS) return;
  const bool oom = result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY;
  throw VulkanError(oom ? TSR_E_OUT_OF_MEMORY : TSR_E_DEVICE,
                    std::string(what) + " failed: " + result_name(result));
}

Loader::Loader() {
  for (const char* name : {"libvulkan.so.1", "libvulkan.so"}) {
    // NODELETE: the loader, and the instance it keeps, stay for the process's lifetime
    // (see Runtime::~Runtime).
    library_ = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library_) break;
    const char* why = dlerror();
    if (error_.empty()) error_ = why ? why : name;
  }
  if (!library_) return;
  error_.clear();
  global_.vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library_, "vkGetInstanceProcAddr"));
  if (!global_.vkGetInstanceProcAddr) {
    error_ = "libvulkan has no vkGetInstanceProcAddr";
    dlclose(library_);
    library_ = nullptr;
    return;
  }
#define TSR_VK_LOAD(name) \
  global_.name = reinterpret_cast<PFN_##name>(global_.vkGetInstanceProcAddr(nullptr, #name));
  TSR_VK_GLOBAL_FUNCTIONS(TSR_VK_LOAD)
#undef TSR_VK_LOAD
  if (!global_.vkCreateInstance || !global_.vkEnumerateInstanceExtensionProperties ||
      !global_.vkEnumerateInstanceLayerProperties) {
    error_ = "libvulkan lacks the instance-creation entry points";
  }
}

Loader::~Loader() {
  if (library_) dlclose(library_);
}

InstanceFunctions Loader::load_instance(VkInstance instance, bool debug_utils) const {
  InstanceFunctions f;
#define TSR_VK_LOAD(name) \
  f.name = reinterpret_cast<PFN_##name>(global_.vkGetInstanceProcAddr(instance, #name));
  TSR_VK_INSTANCE_FUNCTIONS(TSR_VK_LOAD)
  if (debug_utils) {
    TSR_VK_DEBUG_FUNCTIONS(TSR_VK_LOAD)
  }
#undef TSR_VK_LOAD
#define TSR_VK_REQUIRE(name) \
  if (!f.name) throw VulkanError(TSR_E_DEVICE, "the Vulkan loader has no " #name);
  TSR_VK_INSTANCE_FUNCTIONS(TSR_VK_REQUIRE)
#undef TSR_VK_REQUIRE
  return f;
}

DeviceFunctions load_device(const InstanceFunctions& instance, VkDevice device) {
  DeviceFunctions f;
#define TSR_VK_LOAD(name)                                                        \
  f.name = reinterpret_cast<PFN_##name>(instance.vkGetDeviceProcAddr(device, #name)); \
  if (!f.name) throw VulkanError(TSR_E_DEVICE, "the Vulkan driver has no " #name);
  TSR_VK_DEVICE_FUNCTIONS(TSR_VK_LOAD)
#undef TSR_VK_LOAD
  return f;
}

}  // namespace tessera::vulkan
