// Creating the instance, finding the usable devices, and the validation messenger.
#include "backends/vulkan/runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace tessera::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool has_layer(const GlobalFunctions& vk, const char* name) {
  uint32_t count = 0;
  if (vk.vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vk.vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.begin() + count,
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_instance_extension(const GlobalFunctions& vk, const char* layer, const char* name) {
  uint32_t count = 0;
  if (vk.vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vk.vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data()) != VK_SUCCESS) return false;
  return std::any_of(extensions.begin(), extensions.begin() + count,
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  static_cast<Runtime*>(user)->record_message(data && data->pMessage ? data->pMessage : "(no text)");
  return VK_FALSE;  // never abort the call that triggered it
}

bool validation_switch_on() {
  const char* value = std::getenv("TESSERA_VULKAN_VALIDATION");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// Subgroup arithmetic is used unless TESSERA_VULKAN_SUBGROUPS is exactly "0".
bool subgroup_switch_on() {
  const char* value = std::getenv("TESSERA_VULKAN_SUBGROUPS");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

Runtime::Int8Dot read_int8_dot_switch() {
  const char* value = std::getenv("TESSERA_VULKAN_INT8_DOT");
  if (value != nullptr && std::strcmp(value, "0") == 0) return Runtime::Int8Dot::off;
  if (value != nullptr && std::strcmp(value, "1") == 0) return Runtime::Int8Dot::forced;
  return Runtime::Int8Dot::automatic;
}

}  // namespace

Runtime& Runtime::get() {
  static Runtime runtime;
  return runtime;
}

Runtime::Runtime() {
  validation_requested_ = validation_switch_on();
  subgroups_allowed_ = subgroup_switch_on();
  int8_dot_switch_ = read_int8_dot_switch();
  if (!loader_.loaded()) {
    reason_ = "no Vulkan loader (libvulkan.so.1): " + loader_.error();
    return;
  }
  try {
    create_instance();
    scan_devices();
  } catch (const std::exception& e) {
    devices_.clear();
    reason_ = e.what();
  }
}

Runtime::~Runtime() {
  // The messenger calls into this plugin's code, which is about to be unmapped.
  if (messenger_ != VK_NULL_HANDLE) functions_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  // The instance is left to the loader (which lists it) for the rest of the process:
  // destroying the last instance unloads the driver, which is unsafe for drivers that
  // run threads of their own, and lavapipe loses track of memory when unloaded. The
  // host has closed every device by now.
}

void Runtime::create_instance() {
  const GlobalFunctions& g = loader_.global();
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (g.vkEnumerateInstanceVersion) g.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    throw VulkanError(TSR_E_DEVICE, "the Vulkan loader supports only Vulkan " +
                                        std::to_string(VK_API_VERSION_MAJOR(loader_version)) + "." +
                                        std::to_string(VK_API_VERSION_MINOR(loader_version)) +
                                        " (1.2 needed)");
  }
  api_version_ = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

  std::vector<const char*> layers, extensions;
  if (validation_requested_ && has_layer(g, kValidationLayer)) {
    layers.push_back(kValidationLayer);
    validation_active_ = true;
  }
  const bool debug_utils = validation_active_ &&
                           (has_instance_extension(g, nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                            has_instance_extension(g, kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
  if (debug_utils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "tessera";
  app.pEngineName = "tessera";
  app.apiVersion = api_version_;
  auto messenger_info = make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  // Not GENERAL: the loader reports its own notices there (such as the layers it added
  // from VK_INSTANCE_LAYERS), which say nothing about this plugin's use of the API.
  messenger_info.messageType =
      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_debug_message;
  messenger_info.pUserData = this;

  auto info = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pNext = debug_utils ? &messenger_info : nullptr;  // also covers vkCreateInstance itself
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult result = g.vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    instance_ = VK_NULL_HANDLE;
    throw VulkanError(TSR_E_DEVICE, "no Vulkan driver: vkCreateInstance found no installable client driver "
                                    "(VK_ERROR_INCOMPATIBLE_DRIVER)");
  }
  if (result != VK_SUCCESS) instance_ = VK_NULL_HANDLE;
  check(result, "vkCreateInstance");
  functions_ = loader_.load_instance(instance_, debug_utils);
  if (debug_utils) {
    check(functions_.vkCreateDebugUtilsMessengerEXT(instance_, &messenger_info, nullptr, &messenger_),
          "vkCreateDebugUtilsMessengerEXT");
  }
}

void Runtime::scan_devices() {
  uint32_t count = 0;
  check(functions_.vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> handles(count);
  check(functions_.vkEnumeratePhysicalDevices(instance_, &count, handles.data()), "vkEnumeratePhysicalDevices");
  std::string refused;
  for (uint32_t i = 0; i < count; ++i) {
    PhysicalDevice d = query_physical_device(functions_, handles[i], api_version_);
    const std::string missing = missing_requirements(d);
    if (missing.empty()) {
      devices_.push_back(d);
    } else {
      refused += std::string(refused.empty() ? "" : "; ") + d.properties.deviceName + " lacks " + missing;
    }
  }
  std::stable_sort(devices_.begin(), devices_.end(), [](const PhysicalDevice& a, const PhysicalDevice& b) {
    return device_type_rank(a) < device_type_rank(b);
  });
  if (devices_.empty()) {
    reason_ = count == 0 ? "the Vulkan driver reports no physical device"
                         : "no usable Vulkan device: " + refused;
  }
}

void Runtime::record_message(const char* text) {
  messages_.fetch_add(1);
  std::lock_guard lock(print_mutex_);
  std::fprintf(stderr, "tessera vulkan validation: %s\n", text);
}

void Runtime::describe_device(int32_t index, tsr_device_info* out) const {
  describe(device(index), use_int8_dot(device(index)), out);
  std::string note = subgroups_allowed_ ? "" : "; subgroup arithmetic off";
  if (validation_requested_) {
    note += validation_active_ ? "; validation on, " + std::to_string(validation_messages()) + " messages"
                               : std::string("; validation layer missing");
  }
  if (note.empty()) return;
  // The notes go last and are never truncated away: the base text gives way.
  std::string base = out->description;
  base.resize(std::min(base.size(), sizeof out->description - 1 - note.size()));
  copy_text(out->description, sizeof out->description, base + note);
}

bool use_subgroup_arithmetic(const PhysicalDevice& device) {
  return device.subgroup_arithmetic && Runtime::get().subgroups_allowed();
}

bool use_int8_dot(const PhysicalDevice& device) {
  const Runtime::Int8Dot mode = Runtime::get().int8_dot_switch();
  if (mode == Runtime::Int8Dot::off || !device.int8_dot || !use_subgroup_arithmetic(device)) return false;
  return mode == Runtime::Int8Dot::forced || device.int8_dot_accelerated;
}

}  // namespace tessera::vulkan
