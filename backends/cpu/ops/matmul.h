// MATMUL kernels: out[n, m] = sum_k x[n, k] * w[m, k], with x [N, K] f32, the weight
// w [M, K] in any dtype but i32 (the key dtype: f32, f16, bf16 or a block format) and
// out [N, M] f32. out must not overlap x or w.
#pragma once

#include <cstdint>

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

struct MatmulArgs {
  TensorView x;    // [N, K] f32
  TensorView w;    // [M, K] key dtype
  TensorView out;  // [N, M] f32
  int64_t n = 0, k = 0, m = 0;
  tsr_buffer w_buffer = nullptr;  // w's buffer, where it has one (not an expert's view)
};

// Validates a MATMUL call (2 inputs, dtypes, K agreement, output shape).
MatmulArgs check_matmul(const tsr_op_call& call);

// Reference: dequantises each weight row to f32 and accumulates in double. The oracle.
void matmul_ref(CpuDevice& device, const tsr_op_call& call);

// Optimised, multithreaded: for f32, f16 and bf16 a matrix-vector path for few rows of x
// (decode) and a panel path for many (prefill) that converts each group of weight rows to
// f32 once and reuses it across all rows of x; the block formats go to matmul_quant.
void matmul_fast(CpuDevice& device, const tsr_op_call& call);
// matmul_fast's work on arguments already checked (views into other kernels' data:
// one expert of a MOE_MATMUL).
void matmul_checked(CpuDevice& device, const MatmulArgs& a);

}  // namespace tessera::cpu
