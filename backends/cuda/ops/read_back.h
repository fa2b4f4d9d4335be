// A small i32 tensor (indices, positions, block tables) copied to the host, for the
// checks that must see its values before a launch.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {

std::vector<int32_t> read_back_i32(CudaDevice& device, const DeviceTensor& t, std::string_view op);

}  // namespace tessera::cuda
