// The dispatches of one submission as a comparable list, and the cache that remembers
// which reusable command buffer was recorded with which list (least recently used out).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/vulkan/pipelines.h"
#include "backends/vulkan/vk_api.h"

namespace tessera::vulkan {

// Everything the commands of one dispatch depend on: the pipeline, the workgroup grid
// and the push constants (which hold every device address the shader touches). Bytes
// past push_bytes are zero, so two dispatches compare as plain bytes.
struct RecordedDispatch {
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t groups_x = 0, groups_y = 0;
  uint32_t push_bytes = 0;
  uint32_t reserved = 0;  // keeps the struct free of padding
  std::array<std::byte, kPushConstantBytes> push{};
};

// The dispatches of one submission, in order, with a running hash of their bytes.
class DispatchList {
 public:
  // Appends a dispatch; `push_bytes` must not exceed kPushConstantBytes.
  void add(VkPipeline pipeline, const void* push, uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y);
  void clear();

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  std::span<const RecordedDispatch> items() const { return items_; }
  uint64_t hash() const { return hash_; }

  friend bool operator==(const DispatchList& a, const DispatchList& b);

 private:
  std::vector<RecordedDispatch> items_;
  uint64_t hash_ = 0;
};

// Which of `slots` reusable command buffers holds which dispatch list. Recording is
// the caller's: a miss names the slot to record (the least recently used one) and
// remembers the list for it.
class StepCache {
 public:
  explicit StepCache(uint32_t slots);

  struct Lookup {
    uint32_t slot = 0;
    bool hit = false;  // false: the slot must be recorded with the list
  };
  Lookup find_or_assign(const DispatchList& list);
  // Forgets one slot (its recording failed) or all of them (memory they may reference
  // was freed).
  void forget(uint32_t slot);
  void clear();

  uint32_t slot_count() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t valid_slots() const;

 private:
  struct Slot {
    DispatchList list;
    bool valid = false;
    uint64_t last_use = 0;
  };
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace tessera::vulkan
