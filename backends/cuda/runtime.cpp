// Device discovery through the CUDA runtime (see runtime.h). Any error of the first
// call (no driver: cudaErrorInsufficientDriver; a driver without GPUs:
// cudaErrorNoDevice) means no devices, with CUDA's text as the reason.
#include "backends/cuda/runtime.h"

#include <cstdio>
#include <cstring>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_error.h"

namespace tessera::cuda {

const Runtime& Runtime::get() {
  static const Runtime runtime;
  return runtime;
}

Runtime::Runtime() {
  cudaRuntimeGetVersion(&runtime_version_);
  cudaDriverGetVersion(&driver_version_);
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    reason_ = "no CUDA device: " + cuda_error_text(error);
    return;
  }
  if (count <= 0) {
    reason_ = "no CUDA device: the driver reports none";
    return;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (const cudaError_t e = cudaGetDeviceProperties(&prop, i); e != cudaSuccess) {
      cudaGetLastError();
      reason_ = "no CUDA device: device " + std::to_string(i) + ": " + cuda_error_text(e);
      gpus_.clear();
      return;
    }
    GpuProperties g;
    g.name = prop.name;
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    g.memory_bytes = prop.totalGlobalMem;
    g.sm_count = prop.multiProcessorCount;
    g.memory_bus_bits = prop.memoryBusWidth;
    gpus_.push_back(std::move(g));
  }
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

void Runtime::describe_device(int32_t index, tsr_device_info* out) const {
  const GpuProperties& g = gpu(index);
  std::snprintf(out->name, sizeof out->name, "%s", g.name.c_str());
  // The memory free now (the engine's KV budget is a share of it, after the weights);
  // asking makes the device's context, as its first use would.
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaSetDevice(index) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    free_bytes = g.memory_bytes;
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::snprintf(out->description, sizeof out->description,
                "NVIDIA, compute capability %d.%d, %d SMs, %.1f GiB free of %.1f GiB, %d-bit memory bus, "
                "CUDA runtime %s, driver %s",
                g.cc_major, g.cc_minor, g.sm_count, static_cast<double>(free_bytes) / kGiB,
                static_cast<double>(g.memory_bytes) / kGiB, g.memory_bus_bits,
                cuda_version_text(runtime_version_).c_str(), cuda_version_text(driver_version_).c_str());
  out->memory_bytes = free_bytes;
  out->host_visible = 0;
}

}  // namespace tessera::cuda
