// The int8 (q8_0) KV cache on the CPU kernels: KV_WRITE's quantisation error bound and
// layout, the reference attention reading q8_0 rows, and the q8_0 argument checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/kv_write.h"
#include "core/tensor/dtype.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

using ::testing::Each;
using ::testing::FloatEq;
using ::testing::Pointwise;
using ::testing::StrEq;

constexpr int64_t kWidth = 64;  // two q8_0 blocks per cache row

// Block b of cache row `row` of a q8_0 tensor of kWidth columns.
const BlockQ8_0& block_at(HostTensor& cache, int64_t row, int64_t b) {
  const auto* blocks = reinterpret_cast<const BlockQ8_0*>(cache.bytes());
  return blocks[row * (kWidth / kQ8BlockElems) + b];
}

// Writes x [n_tokens, kWidth] into a q8_0 cache of 2 blocks x 4 slots at `slots`.
HostTensor write_q8_0(const std::vector<float>& x, const std::vector<int32_t>& slots) {
  const auto n_tokens = static_cast<int64_t>(slots.size());
  HostTensor cache(TSR_DTYPE_Q8_0, {2, 4, kWidth});
  auto xt = HostTensor::f32({n_tokens, kWidth}, x);
  auto slot = HostTensor::i32({n_tokens}, slots);
  const tsr_kv_write_params p{2, 32, 4};  // 2 KV heads of 32
  CpuDevice device(1);
  EXPECT_EQ(run_kernel(device, kv_write_ref, TSR_OP_KV_WRITE, &p, {&xt, &slot}, cache), TSR_OK)
      << device.last_error();
  return cache;
}

// Three rows whose blocks span magnitudes from 1e-3 to 1e3.
std::vector<float> rows_of_mixed_scale() {
  std::vector<float> x = random_values(3 * kWidth, 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] *= std::pow(10.0f, static_cast<float>(i / 32 % 7) - 3.0f);
  return x;
}

TEST(Q8_0KvWrite, EveryElementIsWithinHalfItsBlockScale) {
  const std::vector<float> x = rows_of_mixed_scale();
  const std::vector<int32_t> slots = {5, 0, 7};
  HostTensor cache = write_q8_0(x, slots);
  const std::vector<float> back = cache.to_f32();
  for (size_t t = 0; t < slots.size(); ++t) {
    for (int64_t i = 0; i < kWidth; ++i) {
      const float scale = f16_to_f32(block_at(cache, slots[t], i / kQ8BlockElems).d);
      const float original = x[t * kWidth + static_cast<size_t>(i)];
      EXPECT_LE(std::fabs(original - back[static_cast<size_t>(slots[t] * kWidth + i)]), scale / 2 * (1 + 1e-6f))
          << "token " << t << " element " << i;
    }
  }
}

TEST(Q8_0KvWrite, BlockScaleIsMaxAbsOver127InF16) {
  const std::vector<float> x = rows_of_mixed_scale();
  HostTensor cache = write_q8_0(x, {2, 1, 6});
  const int32_t slots[] = {2, 1, 6};
  for (int t = 0; t < 3; ++t) {
    for (int64_t b = 0; b < kWidth / kQ8BlockElems; ++b) {
      float amax = 0;
      for (int j = 0; j < kQ8BlockElems; ++j) {
        amax = std::fmax(amax, std::fabs(x[static_cast<size_t>(t * kWidth + b * kQ8BlockElems + j)]));
      }
      EXPECT_EQ(block_at(cache, slots[t], b).d, f32_to_f16(amax / 127.0f)) << "token " << t << " block " << b;
    }
  }
}

TEST(Q8_0KvWrite, LargestMagnitudeOfABlockMapsTo127) {
  std::vector<float> x(kWidth, 0.5f);
  x[3] = -2.0f;   // block 0's extreme, negative
  x[40] = 10.0f;  // block 1's extreme
  HostTensor cache = write_q8_0(x, {4});
  EXPECT_EQ(block_at(cache, 4, 0).q[3], -127);
  EXPECT_EQ(block_at(cache, 4, 1).q[40 - 32], 127);
  EXPECT_EQ(block_at(cache, 4, 0).q[0], 32);  // 0.5 / (2 / 127) = 31.75
  EXPECT_EQ(block_at(cache, 4, 1).q[0], 6);   // 0.5 / (10 / 127) = 6.35
}

TEST(Q8_0KvWrite, ZeroBlockGetsScaleZeroAndOtherRowsStayUntouched) {
  HostTensor cache = write_q8_0(std::vector<float>(kWidth, 0.0f), {3});
  EXPECT_EQ(block_at(cache, 3, 0).d, 0);
  EXPECT_THAT(cache.to_f32(), Each(FloatEq(0.0f)));
}

TEST(Q8_0KvWrite, RefusesRowsThatAreNotWholeBlocks) {
  HostTensor cache(TSR_DTYPE_Q8_0, {2, 4, 64}), x(TSR_DTYPE_F32, {1, 40});
  auto slot = HostTensor::i32({1}, {0});
  const tsr_kv_write_params p{5, 8, 4};  // 5 KV heads of 8 = 40 columns
  CpuDevice device(1);
  EXPECT_EQ(run_kernel(device, kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, cache), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device.last_error(), StrEq("kv_write: cache is q8_0 but n_kv_heads * head_dim = 40 is not a "
                                         "multiple of 32"));
}

// Attention on a q8_0 cache equals attention on an f32 cache holding the dequantised
// values: the kernels dequantise K and V exactly, heads inside blocks included
// (head_dim 8: four KV heads share each block's scale).
TEST(Q8_0Attention, EqualsAttentionOnTheDequantisedCache) {
  tsr_attention_params p{};
  p.n_heads = 8;
  p.n_kv_heads = 4;
  p.head_dim = 8;
  p.block_size = 4;
  p.n_seqs = 1;
  p.max_blocks_per_seq = 3;
  p.scale = 0.35f;
  const std::vector<int64_t> cache_shape = {3, 4, 32};
  auto k8 = HostTensor::from_f32(TSR_DTYPE_Q8_0, cache_shape, random_values(3 * 4 * 32, 31, -3, 3));
  auto v8 = HostTensor::from_f32(TSR_DTYPE_Q8_0, cache_shape, random_values(3 * 4 * 32, 32));
  auto k32 = HostTensor::f32(cache_shape, k8.to_f32());
  auto v32 = HostTensor::f32(cache_shape, v8.to_f32());
  auto q = HostTensor::f32({2, 64}, random_values(2 * 64, 33));
  auto pos = HostTensor::i32({2}, {9, 10});
  auto seq = HostTensor::i32({2}, {0, 0});
  auto tables = HostTensor::i32({1, 3}, {2, 0, 1});
  CpuDevice device(2);
  for (KernelBody body : {attention_ref, attention_fast}) {
    SCOPED_TRACE(body == attention_ref ? "reference" : "optimised");
    HostTensor from_q8(TSR_DTYPE_F32, {2, 64}), from_f32(TSR_DTYPE_F32, {2, 64});
    ASSERT_EQ(run_kernel(device, body, TSR_OP_ATTENTION, &p, {&q, &k8, &v8, &pos, &seq, &tables}, from_q8), TSR_OK)
        << device.last_error();
    ASSERT_EQ(run_kernel(device, body, TSR_OP_ATTENTION, &p, {&q, &k32, &v32, &pos, &seq, &tables}, from_f32),
              TSR_OK)
        << device.last_error();
    EXPECT_THAT(from_q8.to_f32(), Pointwise(FloatEq(), from_f32.to_f32()));
  }
}

TEST(Q8_0Attention, RefusesACacheOfMixedDtypes) {
  tsr_attention_params p{};
  p.n_heads = 1;
  p.n_kv_heads = 1;
  p.head_dim = 32;
  p.block_size = 4;
  p.n_seqs = 1;
  p.max_blocks_per_seq = 1;
  p.scale = 1.0f;
  HostTensor k(TSR_DTYPE_Q8_0, {1, 4, 32}), v(TSR_DTYPE_F16, {1, 4, 32}), q(TSR_DTYPE_F32, {1, 32});
  HostTensor out(TSR_DTYPE_F32, {1, 32});
  auto pos = HostTensor::i32({1}, {0});
  auto seq = HostTensor::i32({1}, {0});
  auto tables = HostTensor::i32({1, 1}, {0});
  CpuDevice device(1);
  EXPECT_EQ(run_kernel(device, attention_ref, TSR_OP_ATTENTION, &p, {&q, &k, &v, &pos, &seq, &tables}, out),
            TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device.last_error(),
              StrEq("attention: v_cache [1, 4, 32] f16 does not match k_cache [1, 4, 32] q8_0"));
}

}  // namespace
}  // namespace tessera::cpu::test
