// The reference kernels against values computed by hand on tiny inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/kv_write.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "core/tensor/dtype.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

constexpr float kTol = 1e-5f;

class ReferenceKernels : public ::testing::Test {
 protected:
  // Runs `body` and expects success.
  void run(KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& in,
           HostTensor& out) {
    ASSERT_EQ(run_kernel(device_, body, op, params, in, out), TSR_OK) << device_.last_error();
  }
  CpuDevice device_{1};
};

TEST_F(ReferenceKernels, RmsNormOfOneToFour) {
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto w = HostTensor::f32({4}, {1, 1, 1, 1});
  HostTensor out(TSR_DTYPE_F32, {1, 4});
  const tsr_norm_params p = norm_params(0.0f, false);
  run(rms_norm_ref, TSR_OP_RMS_NORM, &p, {&x, &w}, out);
  // rms = sqrt((1 + 4 + 9 + 16) / 4) = sqrt(7.5)
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {0.36514837f, 0.73029674f, 1.09544512f,
                                                          1.46059349f}));
}

TEST_F(ReferenceKernels, RmsNormWeightPlusOneScalesByOnePlusW) {
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto w = HostTensor::f32({4}, {0, 1, -1, 0.5f});
  HostTensor out(TSR_DTYPE_F32, {1, 4});
  const tsr_norm_params p = norm_params(0.0f, true);
  run(rms_norm_ref, TSR_OP_RMS_NORM, &p, {&x, &w}, out);
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {0.36514837f, 2 * 0.73029674f, 0.0f,
                                                          1.5f * 1.46059349f}));
}

TEST_F(ReferenceKernels, LayerNormOfOneToFourWithBias) {
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto w = HostTensor::f32({4}, {1, 2, 1, 1});
  auto b = HostTensor::f32({4}, {0, 0, 0, 10});
  HostTensor out(TSR_DTYPE_F32, {1, 4});
  const tsr_norm_params p = norm_params(1e-5f, false);
  run(layer_norm_ref, TSR_OP_LAYER_NORM, &p, {&x, &w, &b}, out);
  // mean 2.5, var 1.25
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {-1.34163542f, 2 * -0.44721181f,
                                                          0.44721181f, 10 + 1.34163542f}));
}

TEST_F(ReferenceKernels, MatmulOfSmallMatrices) {
  auto x = HostTensor::f32({2, 3}, {1, 2, 3, -1, 0, 1});
  auto w = HostTensor::f32({2, 3}, {1, 0, -1, 2, 2, 2});
  HostTensor out(TSR_DTYPE_F32, {2, 2});
  run(matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(-2.0f, 12.0f, -2.0f, 0.0f));
}

TEST_F(ReferenceKernels, MatmulQ8_0UsesTheBlockScale) {
  // One q8_0 block: d = 0.5, q = [2, -4, 0, ...] -> values [1, -2, 0, ...].
  HostTensor w(TSR_DTYPE_Q8_0, {1, 32});
  const uint16_t d = f32_to_f16(0.5f);
  std::memcpy(w.bytes(), &d, 2);
  reinterpret_cast<int8_t*>(w.bytes() + 2)[0] = 2;
  reinterpret_cast<int8_t*>(w.bytes() + 2)[1] = -4;
  std::vector<float> xv(32, 0.0f);
  xv[0] = 3;
  xv[1] = 1;
  auto x = HostTensor::f32({1, 32}, xv);
  HostTensor out(TSR_DTYPE_F32, {1, 1});
  run(matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(1.0f));  // 3 * 1 + 1 * -2
}

TEST_F(ReferenceKernels, GetRowsSelectsAndConvertsF16Rows) {
  auto table = HostTensor::from_f32(TSR_DTYPE_F16, {3, 2}, {0, 1, 2.5f, 3, -4, 5});
  auto idx = HostTensor::i32({3}, {2, 0, 2});
  HostTensor out(TSR_DTYPE_F32, {3, 2});
  run(get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(-4, 5, 0, 1, -4, 5));
}

TEST_F(ReferenceKernels, GetRowsDequantisesQ8_0Rows) {
  std::vector<float> values(64);
  for (int i = 0; i < 64; ++i) values[i] = static_cast<float>(i % 32 - 16) / 16.0f;  // exact in q8
  auto table = HostTensor::from_f32(TSR_DTYPE_Q8_0, {2, 32}, values);
  auto idx = HostTensor::i32({1}, {1});
  HostTensor out(TSR_DTYPE_F32, {1, 32});
  run(get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, out);
  const std::vector<float> row1(values.begin() + 32, values.end());
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(1.0f / 127), row1));
}

TEST_F(ReferenceKernels, AddBroadcastsARowVector) {
  auto a = HostTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = HostTensor::f32({3}, {10, 20, 30});
  HostTensor out(TSR_DTYPE_F32, {2, 3});
  run(add_ref, TSR_OP_ADD, nullptr, {&a, &b}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(11, 22, 33, 14, 25, 36));
}

TEST_F(ReferenceKernels, MulOfSameShapes) {
  auto a = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  auto b = HostTensor::f32({2, 2}, {2, 0.5f, -1, 0});
  HostTensor out(TSR_DTYPE_F32, {2, 2});
  run(mul_ref, TSR_OP_MUL, nullptr, {&a, &b}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(2, 1, -3, 0));
}

TEST_F(ReferenceKernels, SiluAtKnownPoints) {
  auto x = HostTensor::f32({3}, {1, 0, -1});
  HostTensor out(TSR_DTYPE_F32, {3});
  run(silu_ref, TSR_OP_SILU, nullptr, {&x}, out);
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {0.73105858f, 0.0f, -0.26894142f}));
}

TEST_F(ReferenceKernels, GeluAtKnownPoints) {
  auto x = HostTensor::f32({3}, {1, 0, -1});
  HostTensor out(TSR_DTYPE_F32, {3});
  run(gelu_ref, TSR_OP_GELU, nullptr, {&x}, out);
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {0.84134475f, 0.0f, -0.15865525f}));
}

TEST_F(ReferenceKernels, ScaleMultipliesByItsParam) {
  auto x = HostTensor::f32({3}, {1, 0, -1});
  HostTensor out(TSR_DTYPE_F32, {3});
  const tsr_scale_params s{-2.0f};
  run(scale_ref, TSR_OP_SCALE, &s, {&x}, out);
  EXPECT_THAT(out.to_f32(), ElementsAre(-2, 0, 2));
}

TEST_F(ReferenceKernels, SwigluIsSiluOfGateTimesUp) {
  auto gate = HostTensor::f32({1, 2}, {1, -1});
  auto up = HostTensor::f32({1, 2}, {2, 3});
  HostTensor out(TSR_DTYPE_F32, {1, 2});
  run(swiglu_ref, TSR_OP_SWIGLU, nullptr, {&gate, &up}, out);
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {2 * 0.73105858f, 3 * -0.26894142f}));
}

// x = [1, 2, 3, 4] as one head of 4 dims at pos 1, theta 10000: pair 0 turns by 1 rad,
// pair 1 by 10000^(-1/2) = 0.01 rad.
TEST_F(ReferenceKernels, RopeInterleavedAtPositionOne) {
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto pos = HostTensor::i32({1}, {1});
  HostTensor out(TSR_DTYPE_F32, {1, 4});
  const tsr_rope_params p = rope_params(10000.0f, 1.0f, 1, 4, 4, TSR_ROPE_INTERLEAVED);
  run(rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out);
  // (1, 2) by 1 rad, (3, 4) by 0.01 rad
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {-1.14263966f, 1.92207560f, 2.95985067f,
                                                          4.02979950f}));
}

TEST_F(ReferenceKernels, RopeNeoxAtPositionOne) {
  auto x = HostTensor::f32({1, 4}, {1, 2, 3, 4});
  auto pos = HostTensor::i32({1}, {1});
  HostTensor out(TSR_DTYPE_F32, {1, 4});
  const tsr_rope_params p = rope_params(10000.0f, 1.0f, 1, 4, 4, TSR_ROPE_NEOX);
  run(rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out);
  // (1, 3) by 1 rad, (2, 4) by 0.01 rad
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), {-1.98411065f, 1.95990067f, 2.46237790f,
                                                          4.01979967f}));
}

TEST_F(ReferenceKernels, RopePassesDimsPastNRotThroughInEveryHead) {
  // Two heads of 6 dims, n_rot 4; freq_scale 0.5 at pos 2 gives the angles of pos 1.
  auto x = HostTensor::f32({1, 12}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 7, 8});
  auto pos = HostTensor::i32({1}, {2});
  HostTensor out(TSR_DTYPE_F32, {1, 12});
  const tsr_rope_params p = rope_params(10000.0f, 0.5f, 2, 6, 4, TSR_ROPE_INTERLEAVED);
  run(rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out);
  const float r0 = -1.14263966f, r1 = 1.92207560f, r2 = 2.95985067f, r3 = 4.02979950f;
  EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), std::vector<float>{r0, r1, r2, r3, 5, 6, r0, r1, r2, r3, 7, 8}));
}

TEST_F(ReferenceKernels, KvWriteStoresRowsAtSlotsAsF16) {
  HostTensor cache(TSR_DTYPE_F16, {2, 2, 2});  // 2 blocks of 2 slots, width 2
  auto x = HostTensor::f32({2, 2}, {1.5f, -2, 0.25f, 8});
  auto slot = HostTensor::i32({2}, {3, 0});
  const tsr_kv_write_params p{1, 2, 2};
  run(kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, cache);
  EXPECT_THAT(cache.to_f32(), ElementsAre(0.25f, 8, 0, 0, 0, 0, 1.5f, -2));
}

// ---- attention -------------------------------------------------------------------

// A paged cache for attention tests: [n_blocks, block_size, n_kv_heads * head_dim].
struct AttentionFixture {
  tsr_attention_params p;
  HostTensor k, v;
  AttentionFixture(tsr_attention_params params, int64_t n_blocks)
      : p(params),
        k(TSR_DTYPE_F32, {n_blocks, params.block_size, int64_t{params.n_kv_heads} * params.head_dim}),
        v(TSR_DTYPE_F32, {n_blocks, params.block_size, int64_t{params.n_kv_heads} * params.head_dim}) {}
  // Sets every element of cache row `row`, KV head `kv_head`, to `value`.
  void set_v(int64_t row, int kv_head, float value) {
    float* r = v.f32_data() + row * p.n_kv_heads * p.head_dim + kv_head * p.head_dim;
    for (int d = 0; d < p.head_dim; ++d) r[d] = value;
  }
  void set_k(int64_t row, int kv_head, float value) {
    float* r = k.f32_data() + row * p.n_kv_heads * p.head_dim + kv_head * p.head_dim;
    for (int d = 0; d < p.head_dim; ++d) r[d] = value;
  }
};

tsr_attention_params attention_params(int n_heads, int n_kv_heads, int head_dim, int block_size,
                                       int n_seqs, int max_blocks) {
  tsr_attention_params p{};
  p.n_heads = n_heads;
  p.n_kv_heads = n_kv_heads;
  p.head_dim = head_dim;
  p.block_size = block_size;
  p.n_seqs = n_seqs;
  p.max_blocks_per_seq = max_blocks;
  p.scale = 1.0f;
  return p;
}

// Runs the reference and the optimised attention kernel (the hand-computed values hold
// for both) and expects `expected` from each.
void expect_attention(AttentionFixture& f, const HostTensor& q, const HostTensor& pos,
                      const HostTensor& seq, const HostTensor& tables,
                      const std::vector<float>& expected) {
  CpuDevice device(2);
  for (KernelBody body : {attention_ref, attention_fast}) {
    SCOPED_TRACE(body == attention_ref ? "reference" : "optimised");
    HostTensor out(TSR_DTYPE_F32, {q.desc().shape[0], q.desc().shape[1]});
    ASSERT_EQ(run_kernel(device, body, TSR_OP_ATTENTION, &f.p, {&q, &f.k, &f.v, &pos, &seq, &tables}, out),
              TSR_OK)
        << device.last_error();
    EXPECT_THAT(out.to_f32(), Pointwise(FloatNear(kTol), expected));
  }
}

TEST_F(ReferenceKernels, AttentionWithOneKeyReturnsItsValue) {
  AttentionFixture f(attention_params(1, 1, 4, 4, 1, 1), 1);
  auto vv = random_values(4, 1);
  std::copy(vv.begin(), vv.end(), f.v.f32_data());
  auto q = HostTensor::f32({1, 4}, {1, -2, 3, 0.5f});
  auto pos = HostTensor::i32({1}, {0});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  expect_attention(f, q, pos, seq, tables, vv);
}

TEST_F(ReferenceKernels, AttentionMapsQueryHeadsToKvHeadsByGroup) {
  // 4 query heads on 2 KV heads: heads 0, 1 read KV head 0; heads 2, 3 read KV head 1.
  AttentionFixture f(attention_params(4, 2, 2, 4, 1, 1), 1);
  f.set_v(0, 0, 1.0f);
  f.set_v(0, 1, 2.0f);
  auto q = HostTensor::f32({1, 8}, random_values(8, 2));
  auto pos = HostTensor::i32({1}, {0});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  expect_attention(f, q, pos, seq, tables, {1, 1, 1, 1, 2, 2, 2, 2});
}

TEST_F(ReferenceKernels, AttentionIsCausalWithinEachOfTwoSequences) {
  // Block size 4; sequence 0 owns block 0, sequence 1 owns block 1. With q = 0 every
  // visible key has the same weight, so the output is the mean of the visible values.
  AttentionFixture f(attention_params(1, 1, 2, 4, 2, 1), 2);
  const float values[8] = {1, 3, 100, 1000, 10, 20, 30, 5000};  // rows 0..3 seq 0, 4..7 seq 1
  for (int row = 0; row < 8; ++row) f.set_v(row, 0, values[row]);
  auto q = HostTensor::f32({2, 2}, {0, 0, 0, 0});
  auto pos = HostTensor::i32({2}, {1, 2});
  auto seq = HostTensor::i32({2}, {0, 1});
  auto tables = HostTensor::i32({2, 1}, {0, 1});
  // seq 0 at pos 1: mean(1, 3); seq 1 at pos 2: mean(10, 20, 30)
  expect_attention(f, q, pos, seq, tables, {2, 2, 20, 20});
}

TEST_F(ReferenceKernels, AttentionReadsNonContiguousBlocksThroughTheTable) {
  // Block size 2, table [3, 0, 2]: positions 0..4 live in rows 6, 7, 0, 1, 4.
  AttentionFixture f(attention_params(1, 1, 1, 2, 1, 3), 4);
  for (int row = 0; row < 8; ++row) f.set_v(row, 0, static_cast<float>(1 << row));
  auto q = HostTensor::f32({1, 1}, {0});
  auto pos = HostTensor::i32({1}, {4});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 3}, {3, 0, 2});
  expect_attention(f, q, pos, seq, tables, {(64 + 128 + 1 + 2 + 16) / 5.0f});
}

TEST_F(ReferenceKernels, AttentionWindowKeepsTheLastWPositions) {
  AttentionFixture f(attention_params(1, 1, 1, 8, 1, 1), 1);
  for (int row = 0; row < 8; ++row) f.set_v(row, 0, static_cast<float>(row));
  f.p.window = 2;
  auto q = HostTensor::f32({1, 1}, {0});
  auto pos = HostTensor::i32({1}, {5});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  expect_attention(f, q, pos, seq, tables, {4.5f});  // mean of positions 4, 5
}

TEST_F(ReferenceKernels, AttentionSoftcapBoundsTheScores) {
  // Scores 0 and 50 capped at c = 1: 1 * tanh(50) ~= 1, so weights are 1 : e.
  AttentionFixture f(attention_params(1, 1, 1, 2, 1, 1), 1);
  f.set_k(0, 0, 0.0f);
  f.set_k(1, 0, 50.0f);
  f.set_v(0, 0, 1.0f);
  f.set_v(1, 0, 3.0f);
  f.p.softcap = 1.0f;
  auto q = HostTensor::f32({1, 1}, {1});
  auto pos = HostTensor::i32({1}, {1});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  expect_attention(f, q, pos, seq, tables, {2.46211716f});  // (1 + 3e) / (1 + e)
}

TEST_F(ReferenceKernels, AttentionSoftmaxIsStableForLargeScores) {
  // Scores 1000 and 999: a naive exp overflows; the weights are e : 1.
  AttentionFixture f(attention_params(1, 1, 1, 2, 1, 1), 1);
  f.set_k(0, 0, 1000.0f);
  f.set_k(1, 0, 999.0f);
  f.set_v(0, 0, 1.0f);
  f.set_v(1, 0, 3.0f);
  auto q = HostTensor::f32({1, 1}, {1});
  auto pos = HostTensor::i32({1}, {1});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  expect_attention(f, q, pos, seq, tables, {(std::exp(1.0f) + 3) / (std::exp(1.0f) + 1)});
}

}  // namespace
}  // namespace tessera::cpu::test
