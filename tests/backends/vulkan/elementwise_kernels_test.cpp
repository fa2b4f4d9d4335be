// The Vulkan kernels of GET_ROWS, the norms (grouped, and layer norm without a weight),
// the element-wise ops (SUB, AFFINE and CLAMP too) and ROPE (YaRN too) against the CPU reference kernels, on random inputs of odd shapes placed at
// offsets that are not multiples of 256. Tolerances are errors relative to the largest
// reference value.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::norm_params;
using cpu::test::random_ids;
using cpu::test::random_values;
using cpu::test::relative_error;
using cpu::test::rope_params;
using cpu::test::yarn_params;

std::string dtype_text(tsr_dtype t) {
  switch (t) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_BF16: return "bf16";
    default: return "q8_0";
  }
}

// ---- GET_ROWS: exact (both sides dequantise the same way) ---------------------------

struct GetRowsCase {
  tsr_dtype dtype;
  int64_t rows, cols, n;
};

class GetRows : public VulkanParamTest<GetRowsCase> {};

TEST_P(GetRows, MatchesTheReferenceExactly) {
  const GetRowsCase c = GetParam();
  const HostTensor table =
      HostTensor::from_f32(c.dtype, {c.rows, c.cols}, random_values(static_cast<size_t>(c.rows * c.cols), 11));
  const HostTensor idx = HostTensor::i32({c.n}, random_ids(static_cast<size_t>(c.n), static_cast<int32_t>(c.rows), 12));
  HostTensor ref(TSR_DTYPE_F32, {c.n, c.cols});
  run_reference(cpu::get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, ref);
  const std::vector<float> got =
      run_on_vulkan(TSR_OP_GET_ROWS, c.dtype, nullptr, {&table, &idx}, HostTensor(TSR_DTYPE_F32, {c.n, c.cols}),
                    {odd_offset(c.dtype, 8), 132, 1028});
  EXPECT_EQ(got, ref.to_f32());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GetRows,
    ::testing::Values(GetRowsCase{TSR_DTYPE_F32, 7, 13, 5}, GetRowsCase{TSR_DTYPE_F32, 300, 129, 130},
                      GetRowsCase{TSR_DTYPE_F16, 33, 77, 1}, GetRowsCase{TSR_DTYPE_F16, 300, 130, 131},
                      GetRowsCase{TSR_DTYPE_BF16, 9, 45, 17}, GetRowsCase{TSR_DTYPE_Q8_0, 7, 64, 5},
                      GetRowsCase{TSR_DTYPE_Q8_0, 300, 96, 130}),
    [](const auto& info) {
      const GetRowsCase& c = info.param;
      return dtype_text(c.dtype) + "_" + std::to_string(c.rows) + "x" + std::to_string(c.cols) + "_n" +
             std::to_string(c.n);
    });

// ---- RMS_NORM and LAYER_NORM: 1e-5 (float sums against double) ----------------------

struct NormCase {
  int64_t rows, cols;
  bool plus_one;
  bool bias;          // layer norm only
  int32_t group = 0;  // columns per normalised vector; 0: the row
  bool per_group = false;  // w and b: a gain and bias per group, cols values [cols / group, group]
};

// w's (and b's) shape: [group or cols], or [groups, group] with a gain per group.
std::vector<int64_t> norm_param_shape(const NormCase& c) {
  if (c.per_group) return {c.cols / c.group, c.group};
  return {c.group > 0 ? c.group : c.cols};
}

class Norms : public VulkanParamTest<NormCase> {};

TEST_P(Norms, RmsNormMatchesTheReference) {
  const NormCase c = GetParam();
  const HostTensor x = HostTensor::f32({c.rows, c.cols}, random_values(static_cast<size_t>(c.rows * c.cols), 21, -3, 3));
  const std::vector<int64_t> shape = norm_param_shape(c);
  const auto n = static_cast<size_t>(shape.size() == 2 ? c.cols : shape[0]);  // entries of w
  const HostTensor w = HostTensor::f32(shape, random_values(n, 22));
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, c.group);
  HostTensor ref(TSR_DTYPE_F32, {c.rows, c.cols});
  run_reference(cpu::rms_norm_ref, TSR_OP_RMS_NORM, &p, {&x, &w}, ref);
  const auto got = run_on_vulkan(TSR_OP_RMS_NORM, TSR_DTYPE_F32, &p, {&x, &w},
                                 HostTensor(TSR_DTYPE_F32, {c.rows, c.cols}), {36, 260, 68});
  EXPECT_LT(relative_error(got, ref.to_f32()), 1e-5);
}

TEST_P(Norms, LayerNormMatchesTheReference) {
  const NormCase c = GetParam();
  // An offset mean makes the two-pass variance matter.
  const HostTensor x = HostTensor::f32({c.rows, c.cols}, random_values(static_cast<size_t>(c.rows * c.cols), 23, 4, 6));
  const std::vector<int64_t> shape = norm_param_shape(c);
  const auto n = static_cast<size_t>(shape.size() == 2 ? c.cols : shape[0]);  // entries of w and b
  const HostTensor w = HostTensor::f32(shape, random_values(n, 24));
  const HostTensor b = HostTensor::f32(shape, random_values(n, 25));
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, c.group);
  std::vector<const HostTensor*> inputs = {&x, &w};
  if (c.bias) inputs.push_back(&b);
  HostTensor ref(TSR_DTYPE_F32, {c.rows, c.cols});
  run_reference(cpu::layer_norm_ref, TSR_OP_LAYER_NORM, &p, inputs, ref);
  const auto got = run_on_vulkan(TSR_OP_LAYER_NORM, TSR_DTYPE_F32, &p, inputs,
                                 HostTensor(TSR_DTYPE_F32, {c.rows, c.cols}), {36, 260, 68, 4});
  EXPECT_LT(relative_error(got, ref.to_f32()), 1e-5);
}

// A layer norm without parameters (no weight, so no bias): OLMo's.
TEST_P(Norms, LayerNormWithoutAWeightMatchesTheReference) {
  const NormCase c = GetParam();
  const HostTensor x = HostTensor::f32({c.rows, c.cols}, random_values(static_cast<size_t>(c.rows * c.cols), 26, 4, 6));
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, c.group);  // weight_plus_one is ignored without w
  HostTensor ref(TSR_DTYPE_F32, {c.rows, c.cols});
  run_reference(cpu::layer_norm_ref, TSR_OP_LAYER_NORM, &p, {&x}, ref);
  const auto got = run_on_vulkan(TSR_OP_LAYER_NORM, TSR_DTYPE_F32, &p, {&x}, HostTensor(TSR_DTYPE_F32, {c.rows, c.cols}),
                                 {36, 260});
  EXPECT_LT(relative_error(got, ref.to_f32()), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Norms,
                         ::testing::Values(NormCase{1, 64, false, false}, NormCase{3, 173, true, true},
                                           NormCase{17, 1000, false, true}, NormCase{2, 5, true, false},
                                           // one column; many more columns than invocations
                                           NormCase{4, 1, true, true}, NormCase{2, 5000, false, true},
                                           // per-head QK-norm, and odd group widths
                                           NormCase{5, 8 * 64, false, false, 64}, NormCase{3, 7 * 5, true, true, 5},
                                           NormCase{4, 3 * 200, true, false, 200}, NormCase{9, 6, false, true, 1},
                                           // a gain (and bias) per head: Command R+'s QK-norm
                                           NormCase{5, 8 * 64, false, true, 64, true},
                                           NormCase{3, 7 * 5, true, true, 5, true}),
                         [](const auto& info) {
                           const NormCase& c = info.param;
                           return std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                                  (c.plus_one ? "_plus_one" : "") + (c.bias ? "_bias" : "") +
                                  (c.group > 0 ? "_group" + std::to_string(c.group) : "") + (c.per_group ? "_per_group" : "");
                         });

// ---- element-wise ops ----------------------------------------------------------------

struct Shape2 {
  int64_t rows, cols;
};

class Elementwise : public VulkanParamTest<Shape2> {
 protected:
  HostTensor random_matrix(uint32_t seed, float lo = -4, float hi = 4) const {
    const Shape2 s = GetParam();
    return HostTensor::f32({s.rows, s.cols}, random_values(static_cast<size_t>(s.rows * s.cols), seed, lo, hi));
  }
  HostTensor zeros() const { return HostTensor(TSR_DTYPE_F32, {GetParam().rows, GetParam().cols}); }

  // Runs a binary op on both sides; b is [rows, cols] or, with `broadcast`, [cols].
  double binary_error(tsr_op op, cpu::KernelBody ref_body, bool broadcast) {
    const Shape2 s = GetParam();
    const HostTensor a = random_matrix(31);
    const HostTensor b = broadcast ? HostTensor::f32({s.cols}, random_values(static_cast<size_t>(s.cols), 32))
                                   : random_matrix(33);
    HostTensor ref = zeros();
    run_reference(ref_body, op, nullptr, {&a, &b}, ref);
    return relative_error(run_on_vulkan(op, TSR_DTYPE_F32, nullptr, {&a, &b}, zeros(), {36, 132, 1028}), ref.to_f32());
  }
  double unary_error(tsr_op op, cpu::KernelBody ref_body, const void* params) {
    const HostTensor x = random_matrix(34, -9, 9);
    HostTensor ref = zeros();
    run_reference(ref_body, op, params, {&x}, ref);
    return relative_error(run_on_vulkan(op, TSR_DTYPE_F32, params, {&x}, zeros(), {260, 36}), ref.to_f32());
  }
};

TEST_P(Elementwise, AddIsExact) { EXPECT_EQ(binary_error(TSR_OP_ADD, cpu::add_ref, false), 0.0); }
TEST_P(Elementwise, AddBroadcastsARow) { EXPECT_EQ(binary_error(TSR_OP_ADD, cpu::add_ref, true), 0.0); }
TEST_P(Elementwise, MulIsExact) { EXPECT_EQ(binary_error(TSR_OP_MUL, cpu::mul_ref, false), 0.0); }
TEST_P(Elementwise, MulBroadcastsARow) { EXPECT_EQ(binary_error(TSR_OP_MUL, cpu::mul_ref, true), 0.0); }
TEST_P(Elementwise, SwigluWithin1e6) { EXPECT_LT(binary_error(TSR_OP_SWIGLU, cpu::swiglu_ref, false), 1e-6); }
TEST_P(Elementwise, SiluWithin1e6) { EXPECT_LT(unary_error(TSR_OP_SILU, cpu::silu_ref, nullptr), 1e-6); }
TEST_P(Elementwise, GeluWithin1e6) { EXPECT_LT(unary_error(TSR_OP_GELU, cpu::gelu_ref, nullptr), 1e-6); }
TEST_P(Elementwise, ScaleIsExact) {
  const tsr_scale_params p{-0.37f};
  EXPECT_EQ(unary_error(TSR_OP_SCALE, cpu::scale_ref, &p), 0.0);
}
TEST_P(Elementwise, GeluTanhWithin1e6) {
  EXPECT_LT(unary_error(TSR_OP_GELU_TANH, cpu::gelu_tanh_ref, nullptr), 1e-6);
}
TEST_P(Elementwise, ReluIsExact) { EXPECT_EQ(unary_error(TSR_OP_RELU, cpu::relu_ref, nullptr), 0.0); }
TEST_P(Elementwise, ReluSqrIsExact) { EXPECT_EQ(unary_error(TSR_OP_RELU_SQR, cpu::relu_sqr_ref, nullptr), 0.0); }
TEST_P(Elementwise, SoftcapWithin1e6) {
  const tsr_scale_params p{2.5f};
  EXPECT_LT(unary_error(TSR_OP_SOFTCAP, cpu::softcap_ref, &p), 1e-6);
}

TEST_P(Elementwise, SubIsExact) { EXPECT_EQ(binary_error(TSR_OP_SUB, cpu::sub_ref, false), 0.0); }
TEST_P(Elementwise, SubBroadcastsARow) { EXPECT_EQ(binary_error(TSR_OP_SUB, cpu::sub_ref, true), 0.0); }
// The reference rounds x * scale + bias once, as a fused multiply-add does; a shader
// that rounds the product first rounds twice, each by at most half an ulp of a value no
// larger than the largest output here: 2^-22 of it.
TEST_P(Elementwise, AffineWithinTwoRoundings) {
  const tsr_affine_params p{-0.37f, 1.25f};
  EXPECT_LT(unary_error(TSR_OP_AFFINE, cpu::affine_ref, &p), 2.4e-7);
}
TEST_P(Elementwise, AffineNegationIsExact) {
  const tsr_affine_params p{-1.0f, 0.0f};
  EXPECT_EQ(unary_error(TSR_OP_AFFINE, cpu::affine_ref, &p), 0.0);
}
TEST_P(Elementwise, ClampIsExact) {
  const tsr_clamp_params p{-2.5f, 3.0f};
  EXPECT_EQ(unary_error(TSR_OP_CLAMP, cpu::clamp_ref, &p), 0.0);
}

class Saturation : public VulkanTest {};

TEST_F(Saturation, GeluTanhAndSoftcapStayFiniteForHugeInputs) {
  // The cube in gelu_tanh and a naive tanh overflow here; the outputs must be x or 0, and +-cap.
  const HostTensor x = HostTensor::f32({1, 4}, {1e13f, -1e13f, 3e38f, -3e38f});
  const auto expect_same = [&](tsr_op op, cpu::KernelBody body, const void* params) {
    HostTensor ref(TSR_DTYPE_F32, {1, 4});
    run_reference(body, op, params, {&x}, ref);
    EXPECT_EQ(run_on_vulkan(op, TSR_DTYPE_F32, params, {&x}, HostTensor(TSR_DTYPE_F32, {1, 4}), {4, 8}), ref.to_f32())
        << "op " << op;
  };
  const tsr_scale_params cap{2.0f};
  expect_same(TSR_OP_GELU_TANH, cpu::gelu_tanh_ref, nullptr);
  expect_same(TSR_OP_SOFTCAP, cpu::softcap_ref, &cap);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Elementwise,
                         ::testing::Values(Shape2{1, 1}, Shape2{7, 13}, Shape2{33, 257}, Shape2{3, 40000}),
                         [](const auto& info) {
                           return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
                         });

// ---- ROPE: 2e-6 + 1.2e-7 per unit of the largest position ----------------------------
// A float angle of p radians carries about p * 6e-8 of rounding, which the double
// reference does not; the tolerance grows with the largest position accordingly.

struct RopeCase {
  int32_t pairing;
  int32_t n_tokens, n_heads, head_dim, n_rot;
  float freq_scale;
  int32_t max_pos;
  float ext_factor = 0.0f;  // > 0: YaRN with attn_factor 0.9, betas 32 and 1
  int32_t n_ctx_orig = 0;
};

class Rope : public VulkanParamTest<RopeCase> {};

TEST_P(Rope, MatchesTheReference) {
  const RopeCase c = GetParam();
  const int64_t width = static_cast<int64_t>(c.n_heads) * c.head_dim;
  const HostTensor x = HostTensor::f32({c.n_tokens, width}, random_values(static_cast<size_t>(c.n_tokens * width), 41));
  std::vector<int32_t> positions = random_ids(static_cast<size_t>(c.n_tokens), c.max_pos + 1, 42);
  positions[0] = c.max_pos;
  const HostTensor pos = HostTensor::i32({c.n_tokens}, positions);
  tsr_rope_params p = rope_params(10000.0f, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing);
  if (c.ext_factor > 0.0f) p = yarn_params(p, c.ext_factor, 0.9f, 32.0f, 1.0f, c.n_ctx_orig);
  HostTensor ref(TSR_DTYPE_F32, {c.n_tokens, width});
  run_reference(cpu::rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, ref);
  const auto got = run_on_vulkan(TSR_OP_ROPE, TSR_DTYPE_F32, &p, {&x, &pos},
                                 HostTensor(TSR_DTYPE_F32, {c.n_tokens, width}), {36, 100, 516});
  EXPECT_LT(relative_error(got, ref.to_f32()), 2e-6 + 1.2e-7 * c.max_pos);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, Rope,
    ::testing::Values(RopeCase{TSR_ROPE_INTERLEAVED, 5, 8, 8, 8, 1.0f, 40},
                      RopeCase{TSR_ROPE_NEOX, 5, 8, 8, 8, 1.0f, 40},
                      RopeCase{TSR_ROPE_INTERLEAVED, 7, 3, 10, 6, 0.25f, 300},
                      RopeCase{TSR_ROPE_NEOX, 9, 5, 18, 10, 1.0f, 599},
                      RopeCase{TSR_ROPE_NEOX, 1, 2, 128, 128, 1.0f, 511},
                      // YaRN: the ramp spans pairs 1..3, 10..23 and 0..1 of these n_rot
                      RopeCase{TSR_ROPE_NEOX, 7, 3, 10, 8, 0.25f, 300, 1.0f, 4096},
                      RopeCase{TSR_ROPE_INTERLEAVED, 5, 2, 64, 64, 0.125f, 500, 1.0f, 4096},
                      RopeCase{TSR_ROPE_INTERLEAVED, 3, 5, 18, 6, 0.5f, 90, 0.5f, 64}),
    [](const auto& info) {
      const RopeCase& c = info.param;
      return std::string(c.pairing == TSR_ROPE_NEOX ? "neox" : "interleaved") + "_heads" + std::to_string(c.n_heads) +
             "_dim" + std::to_string(c.head_dim) + "_rot" + std::to_string(c.n_rot) + "_pos" + std::to_string(c.max_pos) +
             (c.ext_factor > 0.0f ? "_yarn_ctx" + std::to_string(c.n_ctx_orig) : "");
    });

}  // namespace
}  // namespace tessera::vulkan::test
