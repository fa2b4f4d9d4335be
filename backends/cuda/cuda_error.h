// Failures of the CUDA runtime and cuBLAS as exceptions that carry a tsr_status: the
// backend's plugin slots and kernels catch them at the ABI (kit guard) and return the
// status with "<what>: <CUDA's name and text>" as the last error.
#pragma once

#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <tessera/plugin_abi.h>

namespace tessera::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(tsr_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  tsr_status status() const { return status_; }

 private:
  tsr_status status_;
};

// "cudaErrorMemoryAllocation: out of memory".
std::string cuda_error_text(cudaError_t error);

// Throws CudaError unless `error` is cudaSuccess: out of memory is TSR_E_OUT_OF_MEMORY,
// every other error TSR_E_DEVICE, with "<what>: <cuda_error_text>".
void check_cuda(cudaError_t error, const char* what);
void check_cublas(cublasStatus_t status, const char* what);

}  // namespace tessera::cuda
