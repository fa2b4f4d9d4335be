// Workgroup grids.
#include "backends/vulkan/ops/launch.h"

#include <algorithm>
#include <string>

#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {

Grid grid_for(const VulkanDevice& device, uint64_t groups, std::string_view op) {
  if (groups == 0) return {0, 0};
  const uint64_t max_x = std::max<uint32_t>(device.max_groups_x(), 1);
  const uint64_t x = std::min(groups, max_x);
  const uint64_t y = ceil_div(groups, x);
  if (y > 65535) fail(op, std::to_string(groups) + " workgroups exceed what one dispatch can launch");
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y)};
}

}  // namespace tessera::vulkan
