// The device's command buffers: a one-time buffer for transfers and dispatches outside
// a step, and a few reusable buffers that hold a step's dispatches, recorded once and
// submitted as often as the same step comes again; barriers; submit-and-wait.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/vulkan/step_cache.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

class CommandStream {
 public:
  // `reusable` buffers are allocated for recorded steps (slots 0 .. reusable - 1).
  CommandStream(const DeviceFunctions& vk, VkDevice device, uint32_t queue_family, uint32_t reusable);
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

  // Re-records reusable buffer `slot` with `dispatches` (each followed by a barrier),
  // between the same opening and closing barriers as the one-time buffer. The buffer
  // must not be running (submissions wait, so none is).
  void record(uint32_t slot, std::span<const RecordedDispatch> dispatches, VkPipelineLayout layout);
  // Submits reusable buffer `slot` as last recorded and waits for it.
  void submit_recorded(uint32_t slot);

 private:
  void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                      VkPipelineStageFlags dst, VkAccessFlags dst_access);
  void opening_barrier(VkCommandBuffer cmd);
  void closing_barrier(VkCommandBuffer cmd);
  void submit_and_wait(VkCommandBuffer cmd);

  const DeviceFunctions& vk_;
  VkDevice device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> reusable_;  // freed with the pool
  bool open_ = false;
  uint32_t recorded_ = 0;  // commands since the buffer was opened
};

}  // namespace tessera::vulkan
