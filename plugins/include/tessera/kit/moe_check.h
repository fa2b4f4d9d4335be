// The checks every kernel of the mixture-of-experts ops (MOE_ROUTE, MOE_MATMUL,
// MOE_COMBINE) makes of its tensors and params, and the reading of a route's expert
// indices, so backends refuse the same calls with the same messages.
#pragma once

#include <cstdint>

#include <tessera/kit/tensor_info.h>
#include <tessera/plugin_abi.h>

namespace tessera::kit {

// MOE_ROUTE: logits [T, E] f32, out [T, 2k] f32, 1 <= k <= E, a known gating, a finite
// scale. Returns E.
int64_t check_moe_route(const TensorInfo& logits, const TensorInfo& out, const tsr_moe_route_params& p);

// The sizes of a MOE_MATMUL call.
struct MoeMatmulSizes {
  int64_t tokens = 0;   // T
  int64_t slots = 0;    // k, experts per token
  int64_t experts = 0;  // E
  int64_t m = 0;        // rows of each expert's matrix (output columns per slot)
  int64_t k = 0;        // columns of each expert's matrix (input columns per slot)
  bool per_slot = false;  // x has k * K columns: slot j reads its own columns
};
// MOE_MATMUL: x [T, K] or [T, k * K] f32, experts [E, M, K] of any dtype but i32,
// route [T, 2k] f32, out [T, k * M] f32.
MoeMatmulSizes check_moe_matmul(const TensorInfo& x, const TensorInfo& experts, const TensorInfo& route,
                                const TensorInfo& out);

// MOE_COMBINE: y [T, k * C] f32, route [T, 2k] f32, out [T, C] f32. Returns C.
int64_t check_moe_combine(const TensorInfo& y, const TensorInfo& route, const TensorInfo& out);

// The expert a route names (route[t, j] as stored): fails ("<op>: route ...") unless it
// is a whole number in 0 .. n_experts - 1.
int64_t route_expert(float stored, int64_t n_experts, const char* op);

}  // namespace tessera::kit
