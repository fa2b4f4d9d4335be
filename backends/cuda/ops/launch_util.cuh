// What every .cu launcher shares: the grid for n threads and the launch-error check.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "backends/cuda/cuda_error.h"

namespace tessera::cuda {

inline constexpr int kThreads = 256;

// Blocks of kThreads for `n` threads; grid-stride loops cover what one grid cannot.
inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks < 1 ? 1 : blocks) : 65535 * 16);
}

inline void check_launch(const char* what) { check_cuda(cudaGetLastError(), what); }

}  // namespace tessera::cuda
