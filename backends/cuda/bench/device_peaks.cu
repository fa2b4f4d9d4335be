// The two device figures the CUDA speed targets are stated against, measured on
// cuda:0 and printed as one JSON object: the copy bandwidth (a device-to-device
// cudaMemcpy of 1 GiB, counted as bytes read plus bytes written, the roofline of a
// decode step) and the dense f16 GEMM rate of cuBLAS (8192^3, f32 accumulation, the
// ceiling of prefill). Used by scripts/gpu-check.sh beside `tessera bench`.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "device_peaks: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Milliseconds per run of `fn`, median-free: the mean of `runs` after one warm-up.
template <class Fn>
float time_ms(int runs, Fn fn) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  fn();
  cudaEventRecord(start);
  for (int i = 0; i < runs; ++i) fn();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / static_cast<float>(runs);
}

}  // namespace

int main() {
  int count = 0;
  if (!ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount") || count == 0) return 1;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);

  const size_t bytes = size_t{1} << 30;
  void *a = nullptr, *b = nullptr;
  if (!ok(cudaMalloc(&a, bytes), "cudaMalloc") || !ok(cudaMalloc(&b, bytes), "cudaMalloc")) return 1;
  const float copy_ms = time_ms(10, [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  const double copy_bw = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3);
  cudaFree(a);
  cudaFree(b);

  const int n = 8192;
  __half *x = nullptr, *w = nullptr;
  float* c = nullptr;
  if (!ok(cudaMalloc(&x, sizeof(__half) * n * n), "cudaMalloc") ||
      !ok(cudaMalloc(&w, sizeof(__half) * n * n), "cudaMalloc") || !ok(cudaMalloc(&c, sizeof(float) * n * n), "cudaMalloc")) {
    return 1;
  }
  cudaMemset(x, 0, sizeof(__half) * n * n);
  cudaMemset(w, 0, sizeof(__half) * n * n);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  const float one = 1.0f, zero = 0.0f;
  const float gemm_ms = time_ms(10, [&] {
    cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, w, CUDA_R_16F, n, x, CUDA_R_16F, n, &zero, c,
                 CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
  const double gemm_flops = 2.0 * n * static_cast<double>(n) * n / (gemm_ms * 1e-3);
  cublasDestroy(handle);
  cudaFree(x);
  cudaFree(w);
  cudaFree(c);
  if (!ok(cudaGetLastError(), "a measurement")) return 1;

  std::printf("{\"device\":\"%s\",\"copy_bandwidth_bytes_per_s\":%.6g,\"f16_gemm_flops_per_s\":%.6g}\n", prop.name,
              copy_bw, gemm_flops);
  return 0;
}
