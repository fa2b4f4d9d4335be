// Logical device creation, steps, dispatch, transfers and the error word.
#include "backends/vulkan/device.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include <tessera/plugin_abi.h>

#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

constexpr uint64_t kStagingBytes = uint64_t{16} << 20;

using ErrorWord = kit::DeviceErrorWord;

}  // namespace

VulkanDevice::VulkanDevice(int32_t index) : physical_(Runtime::get().device(index)) {
  create_device();
  try {
    vk_ = load_device(Runtime::get().functions(), device_);
    memory_ = std::make_unique<DeviceMemory>(vk_, device_, physical_);
    pipelines_ = std::make_unique<Pipelines>(vk_, device_);
    stream_ = std::make_unique<CommandStream>(vk_, device_, static_cast<uint32_t>(physical_.compute_queue_family),
                                              kStepSlots);
    error_word_ = std::make_unique<HostBuffer>(vk_, device_, physical_, sizeof(ErrorWord));
    std::memset(error_word_->data(), 0, sizeof(ErrorWord));
  } catch (...) {
    error_word_.reset();
    stream_.reset();
    pipelines_.reset();
    memory_.reset();
    if (vk_.vkDestroyDevice) vk_.vkDestroyDevice(device_, nullptr);
    throw;
  }
}

VulkanDevice::~VulkanDevice() {
  if (vk_.vkDeviceWaitIdle) vk_.vkDeviceWaitIdle(device_);
  free_retired_scratch();
  if (scratch_.block) memory_->free(scratch_);
  staging_.reset();
  error_word_.reset();
  stream_.reset();
  pipelines_.reset();
  memory_.reset();
  vk_.vkDestroyDevice(device_, nullptr);
}

void VulkanDevice::create_device() {
  // Only what the shaders use: device addresses and 16-bit storage loads, and packed
  // int8 dot products (matmul_vec_int8) where the device has them: a 1.3 feature, or
  // on 1.2 the VK_KHR_shader_integer_dot_product extension and its feature.
  auto v11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  v11.storageBuffer16BitAccess = VK_TRUE;
  auto v12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  v12.bufferDeviceAddress = VK_TRUE;
  v11.pNext = &v12;
  auto v13 = make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  v13.shaderIntegerDotProduct = VK_TRUE;
  auto dot = make<VkPhysicalDeviceShaderIntegerDotProductFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES);
  dot.shaderIntegerDotProduct = VK_TRUE;
  std::vector<const char*> extensions;
  if (physical_.int8_dot && physical_.api_version >= VK_API_VERSION_1_3) {
    v12.pNext = &v13;
  } else if (physical_.int8_dot_extension) {
    v12.pNext = &dot;
    extensions.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  }
  auto features = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &v11;

  const float priority = 1.0f;
  auto queue = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueFamilyIndex = static_cast<uint32_t>(physical_.compute_queue_family);
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  auto info = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(Runtime::get().functions().vkCreateDevice(physical_.handle, &info, nullptr, &device_), "vkCreateDevice");
}

uint32_t VulkanDevice::reduction_group_size() const {
  uint32_t size = 8;
  while (size < 128 && size < physical_.subgroup.subgroupSize) size *= 2;
  return size;
}

void VulkanDevice::begin_step() {
  if (in_step_) {
    stream_->discard();
    pending_.clear();
    calls_.clear();
    free_retired_scratch();
  }
  in_step_ = true;
}

void VulkanDevice::end_step() {
  in_step_ = false;
  flush();
}

void VulkanDevice::dispatch(const Dispatch& d, ErrorText on_error) {
  if (d.groups_x == 0 || d.groups_y == 0) return;
  const VkPipeline pipeline = pipelines_->get(d.shader, d.spec);
  if (in_step_) {
    // Recorded (or found recorded) when the step's dispatches are submitted.
    pending_.add(pipeline, d.push, d.push_bytes, d.groups_x, d.groups_y);
    calls_.add(std::move(on_error));
    return;
  }
  const VkCommandBuffer cmd = stream_->recording();
  vk_.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk_.vkCmdPushConstants(cmd, pipelines_->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, d.push_bytes, d.push);
  vk_.vkCmdDispatch(cmd, d.groups_x, d.groups_y, 1);
  stream_->barrier_after_dispatch();
  calls_.add(std::move(on_error));
  flush();
}

void VulkanDevice::flush() {
  try {
    submit_step_dispatches();
    stream_->submit_and_wait();
  } catch (...) {
    pending_.clear();
    calls_.clear();
    throw;
  }
  free_retired_scratch();
  check_error_word();
}

// The pending step dispatches through the cache of recorded buffers. Replaying is
// exact: the commands depend on nothing but what the list compares (pipelines, grids,
// push constants with every device address), and the ErrorText of each call index is
// collected again as the kernels are called.
void VulkanDevice::submit_step_dispatches() {
  if (pending_.empty()) return;
  const StepCache::Lookup found = step_cache_.find_or_assign(pending_);
  if (found.hit) {
    ++steps_replayed_;
  } else {
    try {
      stream_->record(found.slot, pending_.items(), pipelines_->layout());
    } catch (...) {
      step_cache_.forget(found.slot);
      throw;
    }
    ++steps_recorded_;
  }
  pending_.clear();
  stream_->submit_recorded(found.slot);
}

void VulkanDevice::free(const Allocation& allocation) {
  // Commands still waiting to run may use the memory: run them before it is reused. The
  // memory is freed even when they fail; the failure is reported afterwards.
  std::exception_ptr failure;
  try {
    flush();
  } catch (...) {
    failure = std::current_exception();
  }
  // A later allocation may get the same address; a replay would then still do what a
  // new recording does, but nothing recorded should outlive the memory it names.
  step_cache_.clear();
  memory_->free(allocation);
  if (failure) std::rethrow_exception(failure);
}

const Allocation& VulkanDevice::scratch(uint64_t bytes) {
  if (scratch_.block && scratch_.size >= bytes) return scratch_;
  // Grow by half again, so a slowly rising need does not reallocate every call.
  const uint64_t size = std::max(bytes, scratch_.size + scratch_.size / 2);
  const Allocation grown = memory_->allocate(size);
  if (scratch_.block) retired_scratch_.push_back(scratch_);
  scratch_ = grown;
  step_cache_.clear();  // recorded steps name the old buffer, freed after the next submission
  return scratch_;
}

void VulkanDevice::free_retired_scratch() {
  for (const Allocation& a : retired_scratch_) memory_->free(a);
  retired_scratch_.clear();
}

void VulkanDevice::check_error_word() {
  ErrorWord word;
  std::memcpy(&word, error_word_->data(), sizeof word);
  if (word.code == 0) {
    calls_.clear();
    return;
  }
  std::memset(error_word_->data(), 0, sizeof word);  // visible to the next submission
  throw VulkanError(TSR_E_INVALID_ARGUMENT, calls_.take_message(word));
}

HostBuffer& VulkanDevice::staging() {
  if (!staging_) staging_ = std::make_unique<HostBuffer>(vk_, device_, physical_, kStagingBytes);
  return *staging_;
}

// Runs copy(chunk_offset, chunk_bytes) for consecutive staging-sized chunks of `size`.
template <class Copy>
void VulkanDevice::staged(uint64_t size, Copy copy) {
  for (uint64_t done = 0; done < size;) {
    const uint64_t chunk = std::min(size - done, staging().size());
    copy(done, chunk);
    done += chunk;
  }
}

void VulkanDevice::write(const Allocation& dst, uint64_t offset, const void* src, uint64_t size) {
  if (size == 0) return;
  flush();
  const auto* bytes = static_cast<const std::byte*>(src);
  if (dst.block->mapped) {
    std::memcpy(dst.block->mapped + dst.offset + offset, bytes, size);
    return;
  }
  staged(size, [&](uint64_t at, uint64_t chunk) {
    std::memcpy(staging().data(), bytes + at, chunk);
    const VkBufferCopy region{0, dst.offset + offset + at, chunk};
    vk_.vkCmdCopyBuffer(stream_->recording(), staging().buffer(), dst.block->buffer, 1, &region);
    stream_->barrier_after_copy();
    stream_->submit_and_wait();
  });
}

void VulkanDevice::read(const Allocation& src, uint64_t offset, void* dst, uint64_t size) {
  if (size == 0) return;
  flush();
  auto* bytes = static_cast<std::byte*>(dst);
  if (src.block->mapped) {
    std::memcpy(bytes, src.block->mapped + src.offset + offset, size);
    return;
  }
  staged(size, [&](uint64_t at, uint64_t chunk) {
    const VkBufferCopy region{src.offset + offset + at, 0, chunk};
    vk_.vkCmdCopyBuffer(stream_->recording(), src.block->buffer, staging().buffer(), 1, &region);
    stream_->barrier_after_copy();
    stream_->submit_and_wait();
    std::memcpy(bytes + at, staging().data(), chunk);
  });
}

}  // namespace tessera::vulkan
