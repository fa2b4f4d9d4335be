// The CUDA kernels against the CPU reference kernels on random inputs of odd shapes,
// placed at offsets that are not multiples of 256: GET_ROWS and MATMUL for every dtype
// (MATMUL on the GEMV path, up to 8 rows of x, and on the cuBLAS path beyond), the
// norms (grouped, with per-group gains, layer norm with and without parameters), ROPE
// (pairings, scaling, YaRN, Llama 3.1, freq_factors), SLICE and every element-wise op. Tolerances are errors relative to the largest reference value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "backends/cpu/ops/slice.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

using cpu::test::norm_params;
using cpu::test::random_ids;
using cpu::test::random_values;
using cpu::test::relative_error;

// f32 sums in another order than the reference (which sums in double).
constexpr double kF32Tolerance = 2e-5;
// The cuBLAS path rounds x (and a block-format weight) to f16: 2^-11 of each value,
// whose errors average out over K (expected about 3e-4 of the largest output).
constexpr double kHalfTolerance = 4e-3;
// A bf16 weight takes x rounded to bf16, 2^-8 of each value: the largest error is
// expected near 2.3e-3 of the largest output on these shapes.
constexpr double kBf16Tolerance = 1e-2;

const tsr_dtype kEveryDtype[] = {TSR_DTYPE_F32,  TSR_DTYPE_F16,  TSR_DTYPE_BF16, TSR_DTYPE_Q8_0,   TSR_DTYPE_Q4_0,
                                 TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1, TSR_DTYPE_Q2_K,   TSR_DTYPE_Q3_K,
                                 TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_NL, TSR_DTYPE_IQ4_XS};

std::string dtype_name(const ::testing::TestParamInfo<tsr_dtype>& info) {
  return std::string(kit::dtype_traits(info.param).name);
}

// ---- GET_ROWS: the kit's value formulas on both sides (a fused multiply-add apart) --

class CudaGetRows : public CudaParamTest<tsr_dtype> {};

TEST_P(CudaGetRows, MatchesTheReference) {
  const tsr_dtype dtype = GetParam();
  const int64_t rows = 37, cols = 512, n = 11;
  const HostTensor table = HostTensor::from_f32(dtype, {rows, cols}, random_values(rows * cols, 11));
  const HostTensor idx = HostTensor::i32({n}, random_ids(n, static_cast<int32_t>(rows), 12));
  HostTensor ref(TSR_DTYPE_F32, {n, cols});
  run_reference(cpu::get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, ref);
  const auto got = run_on_backend(TSR_OP_GET_ROWS, dtype, nullptr, {&table, &idx}, HostTensor(TSR_DTYPE_F32, {n, cols}),
                                  {odd_offset(dtype, 8), 132, 1028});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, CudaGetRows, ::testing::ValuesIn(kEveryDtype), dtype_name);

// ---- MATMUL ---------------------------------------------------------------------------

struct MatmulShape {
  int64_t n, k, m;
};

class CudaMatmul : public CudaParamTest<std::tuple<tsr_dtype, MatmulShape>> {};

TEST_P(CudaMatmul, MatchesTheReference) {
  const auto [dtype, s] = GetParam();
  const HostTensor x = HostTensor::f32({s.n, s.k}, random_values(s.n * s.k, 51));
  const HostTensor w = HostTensor::from_f32(dtype, {s.m, s.k}, random_values(s.m * s.k, 52));
  HostTensor ref(TSR_DTYPE_F32, {s.n, s.m});
  run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, ref);
  const auto got = run_on_backend(TSR_OP_MATMUL, dtype, nullptr, {&x, &w}, HostTensor(TSR_DTYPE_F32, {s.n, s.m}),
                                  {36, odd_offset(dtype, 3), 1028});
  const bool gemv = s.n <= 8, exact_inputs = dtype == TSR_DTYPE_F32;
  const double tolerance = gemv || exact_inputs       ? kF32Tolerance
                           : dtype == TSR_DTYPE_BF16 ? kBf16Tolerance
                                                     : kHalfTolerance;
  EXPECT_LE(relative_error(got, ref.to_f32()), tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    EveryDtype, CudaMatmul,
    ::testing::Combine(::testing::ValuesIn(kEveryDtype),
                       ::testing::Values(MatmulShape{1, 512, 67}, MatmulShape{7, 768, 131}, MatmulShape{9, 512, 67},
                                         MatmulShape{77, 1024, 301})),
    [](const auto& info) {
      const MatmulShape s = std::get<1>(info.param);
      return std::string(kit::dtype_traits(std::get<0>(info.param)).name) + "_" + std::to_string(s.n) + "x" +
             std::to_string(s.k) + "x" + std::to_string(s.m);
    });

// ---- norms ---------------------------------------------------------------------------

struct NormCase {
  const char* name;
  bool layer;
  int n_params;  // 0 (layer norm only), 1 (w) or 2 (w, b)
  int32_t group;
  bool gain_per_group;  // w (and b) hold C values, one gain per group
  bool plus_one;
};

class CudaNorm : public CudaParamTest<NormCase> {};

TEST_P(CudaNorm, MatchesTheReference) {
  const NormCase c = GetParam();
  const int64_t rows = 5, cols = 384;
  const int64_t params_len = c.gain_per_group || c.group == 0 ? cols : c.group;
  const HostTensor x = HostTensor::f32({rows, cols}, random_values(rows * cols, 21, -3.0f, 3.0f));
  const HostTensor w = HostTensor::f32({params_len}, random_values(params_len, 22));
  const HostTensor b = HostTensor::f32({params_len}, random_values(params_len, 23));
  std::vector<const HostTensor*> inputs{&x};
  if (c.n_params >= 1) inputs.push_back(&w);
  if (c.n_params >= 2) inputs.push_back(&b);
  const tsr_norm_params p = norm_params(1e-5f, c.plus_one, c.group);
  const tsr_op op = c.layer ? TSR_OP_LAYER_NORM : TSR_OP_RMS_NORM;
  HostTensor ref(TSR_DTYPE_F32, {rows, cols});
  run_reference(c.layer ? cpu::layer_norm_ref : cpu::rms_norm_ref, op, &p, inputs, ref);
  std::vector<uint64_t> offsets{4, 260, 516, 1028};
  offsets.erase(offsets.begin() + static_cast<long>(inputs.size()), offsets.end() - 1);
  const auto got = run_on_backend(op, TSR_DTYPE_F32, &p, inputs, HostTensor(TSR_DTYPE_F32, {rows, cols}), offsets);
  EXPECT_LE(relative_error(got, ref.to_f32()), kF32Tolerance);
}

INSTANTIATE_TEST_SUITE_P(EveryLayout, CudaNorm,
                         ::testing::Values(NormCase{"rms", false, 1, 0, false, false},
                                           NormCase{"rms_plus_one", false, 1, 0, false, true},
                                           NormCase{"rms_per_head", false, 1, 64, false, false},
                                           NormCase{"rms_gain_per_head", false, 1, 64, true, false},
                                           NormCase{"layer", true, 2, 0, false, false},
                                           NormCase{"layer_without_bias", true, 1, 0, false, false},
                                           NormCase{"layer_without_parameters", true, 0, 0, false, false},
                                           NormCase{"layer_grouped", true, 2, 96, false, false}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- ROPE: the GPU kernels' tolerance, 2e-6 + 1.2e-7 per unit of the largest position --

struct RopeCase {
  const char* name;
  int32_t pairing, n_heads, head_dim, n_rot;
  float theta, freq_scale;
  int32_t max_pos;
  bool yarn, llama3, factors;
};

class CudaRope : public CudaParamTest<RopeCase> {};

TEST_P(CudaRope, MatchesTheReference) {
  const RopeCase c = GetParam();
  const int64_t n_tokens = 7, width = int64_t{c.n_heads} * c.head_dim;
  const HostTensor x = HostTensor::f32({n_tokens, width}, random_values(static_cast<size_t>(n_tokens * width), 41));
  std::vector<int32_t> positions = random_ids(static_cast<size_t>(n_tokens), c.max_pos + 1, 42);
  positions[0] = c.max_pos;
  const HostTensor pos = HostTensor::i32({n_tokens}, positions);
  const HostTensor factors = HostTensor::f32({c.n_rot / 2}, random_values(static_cast<size_t>(c.n_rot / 2), 73, 1, 40));
  tsr_rope_params p = cpu::test::rope_params(c.theta, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing);
  if (c.yarn) p = cpu::test::yarn_params(p, 1.0f, 0.9f, 32.0f, 1.0f, 4096);
  if (c.llama3) p = cpu::test::llama3_params(p, 8.0f, 1.0f, 4.0f, 8192);
  std::vector<const HostTensor*> inputs{&x, &pos};
  if (c.factors) inputs.push_back(&factors);
  HostTensor ref(TSR_DTYPE_F32, {n_tokens, width});
  run_reference(cpu::rope_ref, TSR_OP_ROPE, &p, inputs, ref);
  std::vector<uint64_t> offsets{36, 100, 212, 516};
  if (!c.factors) offsets.erase(offsets.begin() + 2);
  const auto got = run_on_backend(TSR_OP_ROPE, TSR_DTYPE_F32, &p, inputs, HostTensor(TSR_DTYPE_F32, {n_tokens, width}),
                                  offsets);
  EXPECT_LT(relative_error(got, ref.to_f32()), 2e-6 + 1.2e-7 * c.max_pos);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, CudaRope,
    ::testing::Values(RopeCase{"interleaved", TSR_ROPE_INTERLEAVED, 8, 8, 8, 10000.0f, 1.0f, 40, false, false, false},
                      RopeCase{"neox_partial_scaled", TSR_ROPE_NEOX, 3, 10, 6, 10000.0f, 0.25f, 300, false, false, false},
                      RopeCase{"neox_128", TSR_ROPE_NEOX, 2, 128, 128, 10000.0f, 1.0f, 511, false, false, false},
                      RopeCase{"yarn", TSR_ROPE_INTERLEAVED, 2, 64, 64, 10000.0f, 0.125f, 500, true, false, false},
                      RopeCase{"llama3_and_factors", TSR_ROPE_NEOX, 1, 66, 64, 500000.0f, 1.0f, 500, false, true, true}),
    [](const auto& info) { return std::string(info.param.name); });

// ---- SLICE: exact ----------------------------------------------------------------------

TEST_F(CudaTest, SliceCopiesTheGroupsExactly) {
  const HostTensor x = HostTensor::f32({5, 96}, random_values(5 * 96, 81));
  const tsr_slice_params p = cpu::test::slice_params(8, 10, 24, 3);  // 3 heads: columns 8..17, 32..41, 56..65
  HostTensor ref(TSR_DTYPE_F32, {5, 30});
  run_reference(cpu::slice_ref, TSR_OP_SLICE, &p, {&x}, ref);
  const auto got = run_on_backend(TSR_OP_SLICE, TSR_DTYPE_F32, &p, {&x}, HostTensor(TSR_DTYPE_F32, {5, 30}), {4, 516});
  EXPECT_EQ(got, ref.to_f32());
}

// ---- element-wise --------------------------------------------------------------------

struct ElementwiseCase {
  const char* name;
  tsr_op op;
  cpu::KernelBody reference;
  int inputs;
  bool broadcast;  // b is one row
};

class CudaElementwise : public CudaParamTest<ElementwiseCase> {};

TEST_P(CudaElementwise, MatchesTheReference) {
  const ElementwiseCase c = GetParam();
  const int64_t rows = 13, cols = 333;
  const HostTensor a = HostTensor::f32({rows, cols}, random_values(rows * cols, 31, -5.0f, 5.0f));
  const HostTensor b = c.broadcast ? HostTensor::f32({cols}, random_values(cols, 32))
                                   : HostTensor::f32({rows, cols}, random_values(rows * cols, 32));
  std::vector<const HostTensor*> inputs{&a};
  if (c.inputs == 2) inputs.push_back(&b);
  const tsr_scale_params scale{c.op == TSR_OP_SOFTCAP ? 4.0f : -0.75f};
  const tsr_affine_params affine{1.5f, -0.25f};
  const tsr_clamp_params clamp{-2.0f, 3.0f};
  const void* params = c.op == TSR_OP_AFFINE  ? static_cast<const void*>(&affine)
                       : c.op == TSR_OP_CLAMP ? static_cast<const void*>(&clamp)
                                              : static_cast<const void*>(&scale);
  HostTensor ref(TSR_DTYPE_F32, {rows, cols});
  run_reference(c.reference, c.op, params, inputs, ref);
  std::vector<uint64_t> offsets{4, 516, 1028};
  if (c.inputs == 1) offsets.erase(offsets.begin() + 1);
  const auto got = run_on_backend(c.op, TSR_DTYPE_F32, params, inputs, HostTensor(TSR_DTYPE_F32, {rows, cols}), offsets);
  EXPECT_LE(relative_error(got, ref.to_f32()), kF32Tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    EveryOp, CudaElementwise,
    ::testing::Values(ElementwiseCase{"add", TSR_OP_ADD, cpu::add_ref, 2, false},
                      ElementwiseCase{"add_row", TSR_OP_ADD, cpu::add_ref, 2, true},
                      ElementwiseCase{"mul_row", TSR_OP_MUL, cpu::mul_ref, 2, true},
                      ElementwiseCase{"sub", TSR_OP_SUB, cpu::sub_ref, 2, false},
                      ElementwiseCase{"swiglu", TSR_OP_SWIGLU, cpu::swiglu_ref, 2, false},
                      ElementwiseCase{"silu", TSR_OP_SILU, cpu::silu_ref, 1, false},
                      ElementwiseCase{"gelu", TSR_OP_GELU, cpu::gelu_ref, 1, false},
                      ElementwiseCase{"gelu_tanh", TSR_OP_GELU_TANH, cpu::gelu_tanh_ref, 1, false},
                      ElementwiseCase{"relu", TSR_OP_RELU, cpu::relu_ref, 1, false},
                      ElementwiseCase{"relu_sqr", TSR_OP_RELU_SQR, cpu::relu_sqr_ref, 1, false},
                      ElementwiseCase{"scale", TSR_OP_SCALE, cpu::scale_ref, 1, false},
                      ElementwiseCase{"softcap", TSR_OP_SOFTCAP, cpu::softcap_ref, 1, false},
                      ElementwiseCase{"affine", TSR_OP_AFFINE, cpu::affine_ref, 1, false},
                      ElementwiseCase{"clamp", TSR_OP_CLAMP, cpu::clamp_ref, 1, false}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::cuda::test
