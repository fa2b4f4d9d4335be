// MATMUL: out [N, M] = x [N, K] f32 times w [M, K]^T, w of any float or block dtype.
// Up to kGemvMaxRows tokens (decode): the GEMV kernel reads each weight once. More
// (prefill, batched decode): cuBLAS on the tensor cores with f32 accumulation, x
// converted to the weight's 16-bit type (f16 for block formats, whose weight is
// dequantised to f16 in slabs of rows); an f32 weight takes cublasSgemm.
#include <algorithm>
#include <string>

#include <cublas_v2.h>

#include <tessera/kit/op_shapes.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "matmul";
constexpr int64_t kSlabElements = int64_t{64} << 20;  // f16 scratch of a dequantised weight: 128 MiB at most

// C [m, n] column-major (= out [n, m] row-major) = A^T B, with A = w [k, rows]
// column-major (= w [rows, k] row-major) and B = x [k, n] column-major.
void gemm(CudaDevice& device, const void* w, cudaDataType w_type, const void* x, float* out, int64_t rows,
          int64_t n, int64_t k, int64_t ldc) {
  const float one = 1.0f, zero = 0.0f;
  check_cublas(cublasGemmEx(device.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(rows), static_cast<int>(n),
                            static_cast<int>(k), &one, w, w_type, static_cast<int>(k), x, w_type, static_cast<int>(k),
                            &zero, out, CUDA_R_32F, static_cast<int>(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "matmul: cublasGemmEx");
}

void tiled(CudaDevice& device, const DeviceTensor& x, const DeviceTensor& w, const DeviceTensor& out) {
  const int64_t n = x.rows(), k = x.cols(), m = w.shape[0];
  if (w.dtype == TSR_DTYPE_F32) {
    const float one = 1.0f, zero = 0.0f;
    check_cublas(cublasSgemm(device.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(n),
                             static_cast<int>(k), &one, w.as<const float>(), static_cast<int>(k), x.as<const float>(),
                             static_cast<int>(k), &zero, out.as<float>(), static_cast<int>(m)),
                 "matmul: cublasSgemm");
    return;
  }
  const bool bf16 = w.dtype == TSR_DTYPE_BF16;
  CudaDevice::Scratch x16(device, static_cast<uint64_t>(n * k) * 2);
  launch_to_half(x.as<const float>(), static_cast<uint16_t*>(x16.data()), n * k, bf16, device.stream());
  if (w.dtype == TSR_DTYPE_F16 || bf16) {
    gemm(device, w.data, bf16 ? CUDA_R_16BF : CUDA_R_16F, x16.data(), out.as<float>(), m, n, k, m);
    return;
  }
  const int64_t slab_rows = std::max<int64_t>(1, std::min(m, kSlabElements / std::max<int64_t>(k, 1)));
  CudaDevice::Scratch w16(device, static_cast<uint64_t>(slab_rows * k) * 2);
  for (int64_t r0 = 0; r0 < m; r0 += slab_rows) {
    const int64_t rows = std::min(slab_rows, m - r0);
    launch_dequantize_f16(w.dtype, w.data + r0 * w.row_bytes(), w.row_bytes(), static_cast<uint16_t*>(w16.data()),
                          rows, k, device.stream());
    gemm(device, w16.data(), CUDA_R_16F, x16.data(), out.as<float>() + r0, rows, n, k, m);
  }
}

}  // namespace

void matmul(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");  // [N, K]
  const DeviceTensor w = input(call, 1, kOp, "w");  // [M, K]
  const DeviceTensor out = output(call, kOp);       // [N, M]
  const auto [n, k, m] = kit::check_matmul(x, w, out);
  if (n == 0 || m == 0) return;
  if (n > INT32_MAX || m > INT32_MAX || k > INT32_MAX) {
    fail(kOp, "x " + shape_label(x) + " and w " + shape_label(w) + " exceed cuBLAS's 32-bit sizes");
  }
  device.activate();
  if (k == 0) {
    check_cuda(cudaMemsetAsync(out.data, 0, static_cast<size_t>(n * m) * sizeof(float), device.stream()),
               "matmul: zeroing out");
    return;
  }
  if (n <= kGemvMaxRows) {
    launch_gemv(w.dtype, w.data, w.row_bytes(), x.as<const float>(), out.as<float>(), n, k, m, device.stream());
  } else {
    tiled(device, x, w, out);
  }
}

}  // namespace tessera::cuda
