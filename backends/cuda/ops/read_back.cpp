// read_back_i32 (see read_back.h): an ordered copy on the device's stream, then a wait.
#include "backends/cuda/ops/read_back.h"

#include <string>

#include "backends/cuda/cuda_error.h"

namespace tessera::cuda {

std::vector<int32_t> read_back_i32(CudaDevice& device, const DeviceTensor& t, std::string_view op) {
  std::vector<int32_t> values(static_cast<size_t>(t.elements()));
  if (values.empty()) return values;
  const std::string what = std::string(op) + ": reading indices";
  check_cuda(cudaMemcpyAsync(values.data(), t.data, values.size() * sizeof(int32_t), cudaMemcpyDeviceToHost,
                             device.stream()),
             what.c_str());
  check_cuda(cudaStreamSynchronize(device.stream()), what.c_str());
  return values;
}

}  // namespace tessera::cuda
