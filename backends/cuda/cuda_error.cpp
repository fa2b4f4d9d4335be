// CUDA runtime and cuBLAS status codes as CudaError (see cuda_error.h).
#include "backends/cuda/cuda_error.h"

namespace tessera::cuda {

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

void check_cuda(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
  const tsr_status status = error == cudaErrorMemoryAllocation ? TSR_E_OUT_OF_MEMORY : TSR_E_DEVICE;
  throw CudaError(status, std::string(what) + ": " + cuda_error_text(error));
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const tsr_status code = status == CUBLAS_STATUS_ALLOC_FAILED ? TSR_E_OUT_OF_MEMORY : TSR_E_DEVICE;
  throw CudaError(code, std::string(what) + ": cuBLAS " + cublasGetStatusName(status) + ": " +
                            cublasGetStatusString(status));
}

}  // namespace tessera::cuda
