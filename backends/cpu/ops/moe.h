// The mixture-of-experts kernels: MOE_ROUTE (a router's scores to k experts and their
// weights per token), MOE_MATMUL (each token's rows times its chosen experts' matrices)
// and MOE_COMBINE (the weighted sum of a token's k expert outputs). The route layout
// is the ABI's: [T, 2k], expert indices then weights.
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

void moe_route_ref(CpuDevice& device, const tsr_op_call& call);
// Reference: each slot's expert row by row, dequantised, accumulated in double.
void moe_matmul_ref(CpuDevice& device, const tsr_op_call& call);
// Optimised: the slots routed to each expert gathered into one matrix and multiplied by
// that expert's weights with the MATMUL kernel (decode: one row per chosen expert), so
// only the chosen experts' weights are read.
void moe_matmul_fast(CpuDevice& device, const tsr_op_call& call);
void moe_combine_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
