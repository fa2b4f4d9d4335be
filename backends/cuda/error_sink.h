// Where a CUDA kernel that checks indices reports a bad one: the device's error word and
// the id of the call (CudaDevice::errors_for), whose text explains the report.
#pragma once

#include <cstdint>

#include <tessera/kit/device_errors.h>

namespace tessera::cuda {

struct ErrorSink {
  kit::DeviceErrorWord* word;
  uint32_t call;
};

}  // namespace tessera::cuda
