// The process-wide Vulkan state of the plugin: the loader, one instance, the usable
// physical devices (best first) or the reason there are none, and the validation
// messages the debug messenger counted.
//
// Switch: TESSERA_VULKAN_VALIDATION=1 in the environment (read once, here) enables the
// Khronos validation layer and a debug-utils messenger that counts every validation or
// performance warning and error, prints it to stderr, and appends "validation on, N messages" to each
// device's description (device_info is live, so a host or a test can re-read N).
// Without the layer installed the description says "validation layer missing".
//
// Switch: TESSERA_VULKAN_SUBGROUPS=0 (read once, here) makes the kernels use the plain
// shaders (shared-memory reductions) even where the device has subgroup arithmetic;
// the description then says "subgroup arithmetic off".
//
// Switch: TESSERA_VULKAN_INT8_DOT (read once, here) chooses the int8-dot decode MATMUL
// for q8_0 weights: unset, it is used where the device reports packed int8 dot products
// accelerated; "1" uses it wherever they are supported, "0" never. The description
// says "int8 dot yes (accelerated, used)" or "(not accelerated, not used)".
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/physical_device.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

class Runtime {
 public:
  // The runtime, created at the first call (loader, instance, device scan); never
  // throws: a failure leaves it without devices and with a reason.
  static Runtime& get();

  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  // At plugin unload: destroys the messenger but leaves the instance and the loader
  // alive for the rest of the process (unloading a Vulkan driver mid-process is unsafe).
  ~Runtime();

  int32_t device_count() const { return static_cast<int32_t>(devices_.size()); }
  const PhysicalDevice& device(int32_t index) const { return devices_.at(static_cast<size_t>(index)); }
  // Why there is no device (no loader, no driver, no usable device), or "" if there are.
  const std::string& unavailable_reason() const { return reason_; }

  VkInstance instance() const { return instance_; }
  const InstanceFunctions& functions() const { return functions_; }
  uint32_t api_version() const { return api_version_; }

  // The validation switch and what it observed.
  bool validation_requested() const { return validation_requested_; }
  bool validation_active() const { return validation_active_; }
  uint64_t validation_messages() const { return messages_.load(); }
  void record_message(const char* text);

  // False when TESSERA_VULKAN_SUBGROUPS=0.
  bool subgroups_allowed() const { return subgroups_allowed_; }

  // TESSERA_VULKAN_INT8_DOT: "0" off, "1" forced, anything else (or unset) automatic.
  enum class Int8Dot { off, automatic, forced };
  Int8Dot int8_dot_switch() const { return int8_dot_switch_; }

  // describe() plus the notes of the switches: subgroups off, validation on.
  void describe_device(int32_t index, tsr_device_info* out) const;

 private:
  Runtime();
  void create_instance();
  void scan_devices();

  Loader loader_;
  VkInstance instance_ = VK_NULL_HANDLE;
  InstanceFunctions functions_{};
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  uint32_t api_version_ = VK_API_VERSION_1_2;
  std::vector<PhysicalDevice> devices_;
  std::string reason_;
  bool validation_requested_ = false;
  bool validation_active_ = false;
  bool subgroups_allowed_ = true;
  Int8Dot int8_dot_switch_ = Int8Dot::automatic;
  std::atomic<uint64_t> messages_{0};
  std::mutex print_mutex_;
};

// Whether kernels take the subgroup-arithmetic shader variants (<shader>_subgroup) on
// `device`: it supports them and TESSERA_VULKAN_SUBGROUPS is not 0.
bool use_subgroup_arithmetic(const PhysicalDevice& device);

// Whether the decode MATMUL on q8_0 weights takes the int8-dot path (quantize_q8, then
// matmul_vec_int8) on `device`: it has shaderIntegerDotProduct and subgroup arithmetic
// in use, and TESSERA_VULKAN_INT8_DOT is 1, or unset and the device accelerates it.
bool use_int8_dot(const PhysicalDevice& device);

}  // namespace tessera::vulkan
