// What every .cu launcher shares: the grid for n threads and the launch-error check.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/error_sink.h"

namespace tessera::cuda {

inline constexpr int kThreads = 256;

// Blocks of kThreads for `n` threads; grid-stride loops cover what one grid cannot.
inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks < 1 ? 1 : blocks) : 65535 * 16);
}

inline void check_launch(const char* what) { check_cuda(cudaGetLastError(), what); }

// A kernel's report of a bad index into the device's error word (kit/device_errors.h):
// the first report keeps the word; the host reads it at its next wait.
__device__ inline void report_error(const ErrorSink& sink, uint32_t code, int64_t index, int32_t value) {
  if (atomicCAS(&sink.word->code, 0u, code) == 0u) {
    sink.word->call = sink.call;
    sink.word->index = static_cast<int32_t>(index);
    sink.word->value = value;
  }
}

}  // namespace tessera::cuda
