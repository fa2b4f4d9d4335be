// An opened Vulkan device of the plugin: the logical device and its queue, memory,
// pipelines and command stream; steps (command buffers recorded once and submitted again
// for identical steps), dispatches, host transfers, and the device-side error word.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <tessera/kit/device_errors.h>

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/embedded_shaders.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/physical_device.h"
#include "backends/vulkan/pipelines.h"
#include "backends/vulkan/step_cache.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

// Turns what a shader wrote into the error word (its code, the bad element's index
// and value) into a message, e.g. "get_rows: idx[3] = 600 is outside the table's 512 rows".
using ErrorText = kit::DeviceErrorText;

// One compute dispatch: the pipeline (shader + specialisation constants), the push
// constants and the workgroup grid.
struct Dispatch {
  ShaderId shader;
  std::vector<uint32_t> spec;  // constant_id i = spec[i]
  const void* push = nullptr;
  uint32_t push_bytes = 0;
  uint32_t groups_x = 1, groups_y = 1;
};

class VulkanDevice {
 public:
  // Recorded step command buffers kept: enough for prefill chunks and decode steps
  // of a few batch shapes alternating under continuous batching.
  static constexpr uint32_t kStepSlots = 4;

  // Opens the runtime's physical device `index`; throws VulkanError.
  explicit VulkanDevice(int32_t index);
  ~VulkanDevice();  // waits for the device, then destroys everything
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  const PhysicalDevice& physical() const { return physical_; }
  DeviceMemory& memory() { return *memory_; }

  // A step: dispatches are collected until end_step (or a flush inside the step) submits
  // them and waits. A submission whose dispatches (pipelines, push constants, grids)
  // equal those of one of the last kStepSlots recorded reruns that command buffer
  // without recording; another one is recorded into the least recently used slot.
  // begin_step while a step is open drops the unsubmitted dispatches (a failed step
  // left it open). Outside a step every dispatch runs before returning.
  void begin_step();
  void end_step();
  bool in_step() const { return in_step_; }
  // Submissions of step dispatches recorded anew / rerun from a recorded buffer.
  uint64_t steps_recorded() const { return steps_recorded_; }
  uint64_t steps_replayed() const { return steps_replayed_; }
  // Recorded step buffers currently kept (at most kStepSlots).
  uint32_t recorded_steps_kept() const { return step_cache_.valid_slots(); }

  // Records `d` and a barrier after it; `on_error` explains error codes the shader may
  // write into the error word (see error_word_address / next_call_id).
  void dispatch(const Dispatch& d, ErrorText on_error = {});
  // What shaders that report errors need in their push constants.
  VkDeviceAddress error_word_address() const { return error_word_->address(); }
  uint32_t next_call_id() const { return calls_.next_id(); }
  // Workgroup size for kernels that reduce across invocations: the subgroup size,
  // clamped to a power of two in [8, 128].
  uint32_t reduction_group_size() const;
  // The largest workgroup count of one grid dimension.
  uint32_t max_groups_x() const { return physical_.properties.limits.maxComputeWorkGroupCount[0]; }

  // Host transfers into / out of an allocation at `offset`; synchronous. Inside a step
  // the commands recorded so far are run first.
  void write(const Allocation& dst, uint64_t offset, const void* src, uint64_t size);
  void read(const Allocation& src, uint64_t offset, void* dst, uint64_t size);
  // A device buffer of at least `bytes` for intermediate results that one kernel call
  // passes between its dispatches (e.g. the partial sums of split-KV attention); the
  // same buffer serves every call, since each dispatch ends with a barrier. It grows on
  // demand; a buffer it replaces stays alive until the recorded commands have run.
  const Allocation& scratch(uint64_t bytes);

  // Runs what is recorded and waits; keeps a step open. Throws VulkanError with the
  // kernel's message when a shader reported an error.
  void flush();
  // Frees memory a tensor used (buffer_free): runs what is pending first, and forgets
  // the recorded steps, which may hold its address.
  void free(const Allocation& allocation);

  const char* last_error() const { return last_error_.c_str(); }
  void set_error(std::string message) noexcept { last_error_.swap(message); }

 private:
  void create_device();
  void check_error_word();
  void free_retired_scratch();
  void submit_step_dispatches();
  HostBuffer& staging();
  template <class Copy>
  void staged(uint64_t size, Copy copy);

  const PhysicalDevice& physical_;
  VkDevice device_ = VK_NULL_HANDLE;
  DeviceFunctions vk_{};
  std::unique_ptr<DeviceMemory> memory_;
  std::unique_ptr<Pipelines> pipelines_;
  std::unique_ptr<CommandStream> stream_;
  std::unique_ptr<HostBuffer> error_word_;  // 4 x u32: code, call, index, value
  std::unique_ptr<HostBuffer> staging_;     // created at the first staged transfer
  kit::DeviceCalls calls_;                  // per dispatch of the pending submission
  DispatchList pending_;                    // a step's dispatches not submitted yet
  StepCache step_cache_{kStepSlots};        // which stream_ slot holds which dispatches
  uint64_t steps_recorded_ = 0, steps_replayed_ = 0;
  Allocation scratch_{};                     // scratch(); block null until first use
  std::vector<Allocation> retired_scratch_;  // replaced scratch, freed after the next submission
  bool in_step_ = false;
  std::string last_error_;
};

}  // namespace tessera::vulkan
