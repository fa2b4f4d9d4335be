// The dtype and shape checks of an op's tensors, the same for every backend: a backend
// takes the call's tensors through its own checked access (buffer sizes, addresses),
// then passes them here. Each throws KernelError (TSR_E_INVALID_ARGUMENT) with
// "<op>: <what>", e.g. "matmul: x has 64 columns but w has 63".
#pragma once

#include <cstdint>
#include <string_view>

#include <tessera/plugin_abi.h>

#include <tessera/kit/tensor_info.h>

namespace tessera::kit {

// A unary element-wise op: x f32 of any shape, out f32 of the same shape.
void check_unary(const TensorInfo& x, const TensorInfo& out, std::string_view op);

// SWIGLU: gate [N, C], up and out of its shape, all f32.
void check_swiglu(const TensorInfo& gate, const TensorInfo& up, const TensorInfo& out);

// The two-input element-wise ops as one: SWIGLU (`gated`, inputs named "gate" and "up")
// by check_swiglu, ADD/MUL/SUB ("a" and "b") by check_binary. Returns whether b is a row
// broadcast over a's rows (never for SWIGLU).
struct BinaryRoles {
  const char* a;
  const char* b;
};
constexpr BinaryRoles binary_roles(bool gated) { return gated ? BinaryRoles{"gate", "up"} : BinaryRoles{"a", "b"}; }
bool check_binary_op(const TensorInfo& a, const TensorInfo& b, const TensorInfo& out, std::string_view op, bool gated);

struct MatmulShape {
  int64_t n = 0, k = 0, m = 0;  // x [n, k], w [m, k], out [n, m]
};
// MATMUL: x [N, K] f32, w [M, K] of any dtype but i32, out [N, M] f32.
MatmulShape check_matmul(const TensorInfo& x, const TensorInfo& w, const TensorInfo& out);

// ROPE: params (check_rope_params), x [T, n_heads * head_dim] f32, pos [T] i32, out of
// x's shape f32. Returns T.
int64_t check_rope(const TensorInfo& x, const TensorInfo& pos, const TensorInfo& out, const tsr_rope_params& p);
// ROPE's optional freq_factors: f32 [n_rot / 2].
void check_rope_factors(const TensorInfo& factors, const tsr_rope_params& p);

// SLICE: params (check_slice_params) within x [N, C] f32, out [N, groups * count] f32.
void check_slice(const TensorInfo& x, const TensorInfo& out, const tsr_slice_params& p);

// KV_WRITE: positive sizes, the cache (check_kv_cache), x [T, n_kv_heads * head_dim]
// f32, slot [T] i32. Returns T.
int64_t check_kv_write(const TensorInfo& x, const TensorInfo& slot, const TensorInfo& cache,
                       const tsr_kv_write_params& p);

// Index values, on the host: each of ids[0..n) within [0, limit), else
// "<op>: <name>[i] = v is outside the <what>'s <limit> rows" (GET_ROWS' idx and the
// table, KV_WRITE's slot and the cache).
void check_row_ids(const int32_t* ids, int64_t n, int64_t limit, std::string_view op, std::string_view name,
                   std::string_view what);

}  // namespace tessera::kit
