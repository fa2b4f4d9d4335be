// The compute pipelines of a device, created at first use and kept: one per embedded
// shader and set of specialisation constants. All share one layout: no descriptor
// sets (tensors are passed by device address) and one push-constant range.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "backends/vulkan/embedded_shaders.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

// Every shader's push constants fit the minimum limit the Vulkan spec guarantees.
inline constexpr uint32_t kPushConstantBytes = 128;

class Pipelines {
 public:
  Pipelines(const DeviceFunctions& vk, VkDevice device);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  VkPipelineLayout layout() const { return layout_; }
  // The pipeline of `shader` with specialisation constant i = spec[i].
  VkPipeline get(ShaderId shader, std::span<const uint32_t> spec);

 private:
  VkShaderModule module(ShaderId shader);

  const DeviceFunctions& vk_;
  VkDevice device_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::map<ShaderId, VkShaderModule> modules_;
  std::map<std::pair<ShaderId, std::vector<uint32_t>>, VkPipeline> pipelines_;
};

}  // namespace tessera::vulkan
