// The GPUs the CUDA runtime sees, found once per process: their properties for
// `tessera backends`, or why there are none ("no CUDA device: <CUDA's reason>").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

namespace tessera::cuda {

struct GpuProperties {
  std::string name;        // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  uint64_t memory_bytes = 0;
  int sm_count = 0;
  int memory_bus_bits = 0;
};

class Runtime {
 public:
  static const Runtime& get();

  int32_t device_count() const { return static_cast<int32_t>(gpus_.size()); }
  const std::string& unavailable_reason() const { return reason_; }  // "" with devices
  const GpuProperties& gpu(int32_t index) const { return gpus_.at(static_cast<size_t>(index)); }
  // The name, "NVIDIA, compute capability 9.0, 132 SMs, 139.2 GiB free of 139.8 GiB,
  // ..., CUDA runtime 13.0, driver 13.0", and as memory_bytes the memory free now.
  void describe_device(int32_t index, tsr_device_info* out) const;

 private:
  Runtime();
  std::vector<GpuProperties> gpus_;
  std::string reason_;
  int runtime_version_ = 0, driver_version_ = 0;
};

// "13.0" for CUDA's 13000.
std::string cuda_version_text(int version);

}  // namespace tessera::cuda
