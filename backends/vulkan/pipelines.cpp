// Shader modules and compute pipelines, created lazily.
#include "backends/vulkan/pipelines.h"

#include <cstring>
#include <string>

namespace tessera::vulkan {

Pipelines::Pipelines(const DeviceFunctions& vk, VkDevice device) : vk_(vk), device_(device) {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  auto info = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  info.pushConstantRangeCount = 1;
  info.pPushConstantRanges = &range;
  check(vk_.vkCreatePipelineLayout(device_, &info, nullptr, &layout_), "vkCreatePipelineLayout");
}

Pipelines::~Pipelines() {
  for (auto& [key, pipeline] : pipelines_) vk_.vkDestroyPipeline(device_, pipeline, nullptr);
  for (auto& [shader, module] : modules_) vk_.vkDestroyShaderModule(device_, module, nullptr);
  vk_.vkDestroyPipelineLayout(device_, layout_, nullptr);
}

VkShaderModule Pipelines::module(ShaderId shader) {
  if (auto it = modules_.find(shader); it != modules_.end()) return it->second;
  const EmbeddedShader& code = embedded_shader(shader);
  // Copied into words: the embedded bytes carry no alignment guarantee for uint32_t.
  std::vector<uint32_t> words(code.size / sizeof(uint32_t));
  std::memcpy(words.data(), code.bytes, words.size() * sizeof(uint32_t));
  auto info = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  info.codeSize = words.size() * sizeof(uint32_t);
  info.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check(vk_.vkCreateShaderModule(device_, &info, nullptr, &module),
        ("vkCreateShaderModule for " + std::string(code.name)).c_str());
  modules_.emplace(shader, module);
  return module;
}

VkPipeline Pipelines::get(ShaderId shader, std::span<const uint32_t> spec) {
  auto key = std::make_pair(shader, std::vector<uint32_t>(spec.begin(), spec.end()));
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (uint32_t i = 0; i < spec.size(); ++i) entries[i] = {i, i * 4u, 4u};
  VkSpecializationInfo specialization{};
  specialization.mapEntryCount = static_cast<uint32_t>(entries.size());
  specialization.pMapEntries = entries.data();
  specialization.dataSize = spec.size() * sizeof(uint32_t);
  specialization.pData = spec.data();
  auto info = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module(shader);
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = spec.empty() ? nullptr : &specialization;
  info.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  check(vk_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
        ("vkCreateComputePipelines for " + std::string(embedded_shader(shader).name)).c_str());
  pipelines_.emplace(std::move(key), pipeline);
  return pipeline;
}

}  // namespace tessera::vulkan
