// Command buffer recording and synchronous submission.
#include "backends/vulkan/command_stream.h"

#include <cstdint>

namespace tessera::vulkan {
namespace {

constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWorkAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

}  // namespace

CommandStream::CommandStream(const DeviceFunctions& vk, VkDevice device, uint32_t queue_family, uint32_t reusable)
    : vk_(vk), device_(device), reusable_(reusable, VK_NULL_HANDLE) {
  vk_.vkGetDeviceQueue(device_, queue_family, 0, &queue_);
  auto pool = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = queue_family;
  check(vk_.vkCreateCommandPool(device_, &pool, nullptr, &pool_), "vkCreateCommandPool");
  auto alloc = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  auto fence = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkResult result = vk_.vkAllocateCommandBuffers(device_, &alloc, &buffer_);
  if (result == VK_SUCCESS && reusable > 0) {
    alloc.commandBufferCount = reusable;
    result = vk_.vkAllocateCommandBuffers(device_, &alloc, reusable_.data());
  }
  if (result == VK_SUCCESS) result = vk_.vkCreateFence(device_, &fence, nullptr, &fence_);
  if (result != VK_SUCCESS) {
    vk_.vkDestroyCommandPool(device_, pool_, nullptr);
    check(result, "creating the command buffers");
  }
}

CommandStream::~CommandStream() {
  vk_.vkDestroyFence(device_, fence_, nullptr);
  vk_.vkDestroyCommandPool(device_, pool_, nullptr);  // frees the command buffers
}

VkCommandBuffer CommandStream::recording() {
  if (!open_) {
    auto begin = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk_.vkBeginCommandBuffer(buffer_, &begin), "vkBeginCommandBuffer");
    open_ = true;
    recorded_ = 0;
    opening_barrier(buffer_);
  }
  ++recorded_;
  return buffer_;
}

void CommandStream::barrier_after_dispatch() {
  memory_barrier(buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, kWorkStages,
                 kWorkAccess);
}

void CommandStream::barrier_after_copy() {
  memory_barrier(buffer_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kWorkStages, kWorkAccess);
}

void CommandStream::memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                                   VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  auto barrier = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vk_.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void CommandStream::opening_barrier(VkCommandBuffer cmd) {
  // Writes of earlier submissions and of the host (copies, kernels, buffer_write).
  memory_barrier(cmd, kWorkStages | VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT, kWorkStages,
                 kWorkAccess);
}

void CommandStream::closing_barrier(VkCommandBuffer cmd) {
  // Everything written becomes visible to host reads once the fence signals.
  memory_barrier(cmd, kWorkStages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void CommandStream::submit_and_wait() {
  if (!open_) return;
  if (recorded_ == 0) {
    discard();
    return;
  }
  closing_barrier(buffer_);
  open_ = false;
  recorded_ = 0;
  check(vk_.vkEndCommandBuffer(buffer_), "vkEndCommandBuffer");
  submit_and_wait(buffer_);
  check(vk_.vkResetCommandBuffer(buffer_, 0), "vkResetCommandBuffer");
}

void CommandStream::submit_and_wait(VkCommandBuffer cmd) {
  auto submit = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  check(vk_.vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit");
  const VkResult waited = vk_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
  check(waited, "vkWaitForFences");
  check(vk_.vkResetFences(device_, 1, &fence_), "vkResetFences");
}

void CommandStream::record(uint32_t slot, std::span<const RecordedDispatch> dispatches, VkPipelineLayout layout) {
  const VkCommandBuffer cmd = reusable_.at(slot);
  check(vk_.vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
  // No ONE_TIME_SUBMIT: the buffer is submitted again for every identical step.
  auto begin = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  check(vk_.vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  opening_barrier(cmd);
  VkPipeline bound = VK_NULL_HANDLE;
  for (const RecordedDispatch& d : dispatches) {
    // Push constants outlive a rebind (one layout), so only a change of pipeline binds.
    if (d.pipeline != bound) vk_.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline);
    bound = d.pipeline;
    vk_.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, d.push_bytes, d.push.data());
    vk_.vkCmdDispatch(cmd, d.groups_x, d.groups_y, 1);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, kWorkStages, kWorkAccess);
  }
  closing_barrier(cmd);
  check(vk_.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

void CommandStream::submit_recorded(uint32_t slot) { submit_and_wait(reusable_.at(slot)); }

void CommandStream::discard() {
  if (open_) {
    vk_.vkEndCommandBuffer(buffer_);
    vk_.vkResetCommandBuffer(buffer_, 0);
  }
  open_ = false;
  recorded_ = 0;
}

}  // namespace tessera::vulkan
