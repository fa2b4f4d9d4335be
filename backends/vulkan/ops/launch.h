// Helpers every op uses to turn its checked arguments into a dispatch: workgroup grids
// that fold large counts into a second dimension, and typed push constants.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/vulkan/device.h"
#include "backends/vulkan/pipelines.h"

namespace tessera::vulkan {

// Invocations per workgroup of the element-wise shaders (specialisation constant 0).
inline constexpr uint32_t kElementwiseGroup = 128;

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct Grid {
  uint32_t x = 0, y = 0;
};

// `groups` workgroups as x * y >= groups (the shaders skip the surplus through
// flat_group_id()); fails for `op` when even two dimensions cannot hold them.
Grid grid_for(const VulkanDevice& device, uint64_t groups, std::string_view op);

// A dispatch of `shader` with `push` (a struct laid out like the shader's push-constant
// block) over `grid`. Push structs have no padding bytes (fill a gap with a named
// field): a step is replayed only when its push bytes equal the recorded ones, and
// padding would hold whatever the stack held.
template <class Push>
Dispatch make_dispatch(ShaderId shader, std::vector<uint32_t> spec, const Push& push, Grid grid) {
  static_assert(sizeof(Push) <= kPushConstantBytes, "push constants exceed the guaranteed 128 bytes");
  return Dispatch{shader, std::move(spec), &push, static_cast<uint32_t>(sizeof(Push)), grid.x, grid.y};
}

}  // namespace tessera::vulkan
