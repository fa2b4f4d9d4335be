// The checks every kernel of an op makes of its params and tensors (the norms, the
// two-input element-wise ops, CLAMP, ROPE, SLICE, GET_ROWS, ATTENTION, KV_WRITE), so
// backends refuse the same calls with the same messages.
#pragma once

#include <cstdint>
#include <string_view>

#include <tessera/kit/tensor_info.h>
#include <tessera/plugin_abi.h>

namespace tessera::kit {

// How a norm call's vectors meet its parameters (check_norm's answer).
struct NormLayout {
  int64_t group = 0;         // G, the columns of each normalised vector: params.group, or C for 0
  int64_t param_stride = 0;  // 0: w and b [G] serve every group; G: they hold C values, group g's at g * G
};

// RMS_NORM and LAYER_NORM (`op`): x [N, C], the gain w and bias b [G] (either may be
// null: left out), or, for groups narrower than C, C values each (any shape: one gain
// per group, such as [heads, head_dim]), out [N, C], all f32, eps >= 0, and a group
// that divides C.
NormLayout check_norm(const TensorInfo& x, const TensorInfo* w, const TensorInfo* b, const TensorInfo& out,
                      const tsr_norm_params& params, std::string_view op);

// ADD, MUL and SUB (`op`): a [rows, cols], b of a's shape or a row [cols], out of a's
// shape, all f32. Returns whether b is the row broadcast over a's rows.
bool check_binary(const TensorInfo& a, const TensorInfo& b, const TensorInfo& out, std::string_view op);

// Throws KernelError (fail("clamp", ...)) unless lo <= hi (infinities allowed, NaN not).
void check_clamp_params(const tsr_clamp_params& p);

// Throws KernelError (fail("rope", ...)) for params no ROPE kernel can run.
void check_rope_params(const tsr_rope_params& p);

// Throws KernelError (fail("slice", ...)) unless the params read inside x's `x_cols`
// columns; returns the output width, groups * count.
int64_t check_slice_params(const tsr_slice_params& p, int64_t x_cols);

// GET_ROWS: table [R, C] of a float dtype, idx [N] i32, out [N, C] f32; throws
// KernelError (fail("get_rows", ...)) otherwise.
void check_get_rows(const TensorInfo& table, const TensorInfo& idx, const TensorInfo& out);

// Throws KernelError (fail("attention", ...)) for sizes, window, softcap, scale or
// alibi_max_bias no ATTENTION kernel can run.
void check_attention_params(const tsr_attention_params& p);

// A paged KV cache tensor `role` of `op`: f32, f16 or q8_0 (rows of whole q8_0 blocks),
// shaped [n_blocks, block_size, width]; throws KernelError otherwise.
void check_kv_cache(const TensorInfo& cache, std::string_view op, std::string_view role, int64_t block_size,
                    int64_t width);

}  // namespace tessera::kit
