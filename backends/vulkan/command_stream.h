// The device's command buffer: recording, the barriers between dispatches, and
// submit-and-wait. One buffer is reused; the caller decides when to submit (at the end
// of a step, or right away outside one).
#pragma once

#include <cstdint>

#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

class CommandStream {
 public:
  CommandStream(const DeviceFunctions& vk, VkDevice device, uint32_t queue_family);
  ~CommandStream();
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  // The command buffer, opened if it is not recording yet. Opening records a barrier
  // that makes the writes of earlier submissions (shaders, copies, the host) visible.
  VkCommandBuffer recording();
  // After a dispatch: later dispatches and copies see its writes.
  void barrier_after_dispatch();
  // After a copy: later dispatches and copies see its writes.
  void barrier_after_copy();

  bool has_work() const { return recorded_ > 0; }
  // Ends the buffer (with a barrier making all writes visible to the host), submits
  // it and waits for it; nothing happens when nothing was recorded.
  void submit_and_wait();
  // Drops the recorded commands without running them.
  void discard();

 private:
  void memory_barrier(VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                      VkAccessFlags dst_access);

  const DeviceFunctions& vk_;
  VkDevice device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  bool open_ = false;
  uint32_t recorded_ = 0;  // commands since the buffer was opened
};

}  // namespace tessera::vulkan
