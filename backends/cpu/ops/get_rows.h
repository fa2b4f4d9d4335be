// GET_ROWS: out[i, :] = table[idx[i], :], with table [R, C] in f32, f16, bf16 or q8_0
// (the key dtype), idx i32 [N] and out [N, C] f32. Embedding lookups.
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// Reference: dequantises each selected row. Fails on an index outside [0, R).
void get_rows_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
