// The Vulkan KV_WRITE kernel on an int8 (q8_0-block) cache against the CPU reference:
// the bytes it writes (block scales within one f16 step, quants within one, and
// identical bytes where the rounding is exact), the rows it must leave alone, odd row
// widths and block sizes, and the q8_0 argument checks of KV_WRITE and ATTENTION.
// (ATTENTION on q8_0 caches is in attention_kernels_test.cpp, with the other dtypes.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/ops/kv_write.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using ::testing::HasSubstr;
using cpu::test::random_values;

constexpr int64_t kBlockElems = 32;
constexpr int64_t kBlockBytes = 34;

// Runs KV_WRITE of x into `cache` on the CPU reference and on Vulkan (x, slot and the
// cache at unaligned offsets); returns {reference, vulkan} caches.
std::pair<HostTensor, HostTensor> write_both(const tsr_kv_write_params& p, const HostTensor& x, const HostTensor& slot,
                                             const HostTensor& cache) {
  HostTensor ref(TSR_DTYPE_Q8_0, {cache.desc().shape[0], cache.desc().shape[1], cache.desc().shape[2]});
  std::memcpy(ref.bytes(), cache.desc().buffer->data + cache.desc().offset,
              static_cast<size_t>(cache.elements() / kBlockElems * kBlockBytes));
  run_reference(cpu::kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, ref);
  const GpuTensor gx(x, 36), gslot(slot, 132), gcache(cache, odd_offset(TSR_DTYPE_Q8_0, 64));
  run_vulkan(TSR_OP_KV_WRITE, TSR_DTYPE_Q8_0, &p, {&gx, &gslot}, gcache);
  EXPECT_TRUE(gcache.guards_intact()) << "the kernel wrote outside the cache";
  return {std::move(ref), gcache.read()};
}

// How the blocks of two q8_0 tensors differ: the largest distance between scales in
// f16 steps (the bits of non-negative halves are ordered like their values), the
// largest quant difference, and the number of blocks that are not byte-identical.
struct BlockDiff {
  int scale_steps = 0;
  int quant = 0;
  int64_t blocks_differing = 0;
  std::string first;  // where the first differing block is
};

BlockDiff compare_blocks(HostTensor& got, HostTensor& ref) {
  BlockDiff diff;
  const int64_t blocks = ref.elements() / kBlockElems;
  for (int64_t b = 0; b < blocks; ++b) {
    const auto* g = reinterpret_cast<const BlockQ8_0*>(got.bytes() + b * kBlockBytes);
    const auto* r = reinterpret_cast<const BlockQ8_0*>(ref.bytes() + b * kBlockBytes);
    if (std::memcmp(g, r, kBlockBytes) == 0) continue;
    if (diff.blocks_differing++ == 0) diff.first = "block " + std::to_string(b);
    diff.scale_steps = std::max(diff.scale_steps, std::abs(int{g->d} - int{r->d}));
    for (int64_t j = 0; j < kBlockElems; ++j) diff.quant = std::max(diff.quant, std::abs(g->q[j] - r->q[j]));
  }
  return diff;
}

// n_tokens rows of x whose 32-value blocks span magnitudes 1e-3 .. 1e3 (so some block
// scales are f16 subnormals), with one block of zeros and one of 1e-9 (scale 0).
std::vector<float> blocks_of_mixed_scale(int64_t n_tokens, int64_t width, uint32_t seed) {
  std::vector<float> x = random_values(static_cast<size_t>(n_tokens * width), seed);
  for (size_t i = 0; i < x.size(); ++i) x[i] *= std::pow(10.0f, static_cast<float>(i / kBlockElems % 7) - 3.0f);
  std::fill_n(x.begin(), kBlockElems, 0.0f);
  if (x.size() >= 3 * kBlockElems) {
    for (size_t i = 2 * kBlockElems; i < 3 * kBlockElems; ++i) x[i] = 1e-9f * (static_cast<float>(i % 5) - 2.0f);
  }
  return x;
}

struct KvWriteCase {
  std::string name;
  int32_t n_blocks, block_size, n_kv_heads, head_dim, n_tokens;
};

class Q8_0KvWrite : public VulkanParamTest<KvWriteCase> {};

// Tolerance: a GPU may divide max|x| / 127 and 1 / d less exactly than the CPU, which
// moves a scale across an f16 rounding boundary or a quant across a half (one step).
TEST_P(Q8_0KvWrite, MatchesTheReferenceBlocksAndKeepsTheOtherRows) {
  const KvWriteCase c = GetParam();
  const int64_t width = static_cast<int64_t>(c.n_kv_heads) * c.head_dim;
  const int64_t rows = static_cast<int64_t>(c.n_blocks) * c.block_size;
  std::vector<int32_t> slots(static_cast<size_t>(rows));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), std::mt19937(91));
  slots.resize(static_cast<size_t>(c.n_tokens));
  const HostTensor x = HostTensor::f32({c.n_tokens, width}, blocks_of_mixed_scale(c.n_tokens, width, 92));
  const HostTensor slot = HostTensor::i32({c.n_tokens}, slots);
  const HostTensor cache = HostTensor::from_f32(TSR_DTYPE_Q8_0, {c.n_blocks, c.block_size, width},
                                                random_values(static_cast<size_t>(rows * width), 93, -4, 4));
  const tsr_kv_write_params p{c.n_kv_heads, c.head_dim, c.block_size};
  auto [ref, got] = write_both(p, x, slot, cache);
  const BlockDiff diff = compare_blocks(got, ref);
  EXPECT_LE(diff.scale_steps, 1) << diff.first;
  EXPECT_LE(diff.quant, 1) << diff.first;
  // Half of one percent of the blocks at most may differ at all.
  EXPECT_LE(diff.blocks_differing * 200, rows * width / kBlockElems) << diff.first;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Q8_0KvWrite,
                         ::testing::Values(KvWriteCase{"one_token_two_heads_of_32", 4, 16, 2, 32, 1},
                                           KvWriteCase{"heads_of_8_share_a_block", 3, 16, 4, 8, 37},
                                           KvWriteCase{"heads_of_40_block_size_7", 9, 7, 4, 40, 50},
                                           KvWriteCase{"every_row_of_a_wide_cache", 5, 13, 2, 96, 65}),
                         [](const auto& info) { return info.param.name; });

class Q8_0KvWriteRounding : public VulkanTest {};

// A block whose largest magnitude is 127 has scale 1 exactly, so x / d is x: values
// halfway between integers round away from zero, as std::lround does, bit for bit.
TEST_F(Q8_0KvWriteRounding, HalvesRoundAwayFromZeroLikeTheReference) {
  std::vector<float> x(64);
  for (size_t j = 0; j < 32; ++j) x[j] = (j % 2 == 0 ? 1.0f : -1.0f) * (static_cast<float>(j) + 0.5f);
  for (size_t j = 32; j < 64; ++j) x[j] = static_cast<float>(j) * 0.25f - 8.0f;  // .0, .25, .5, .75 steps
  x[31] = 127.0f;
  x[63] = -127.0f;
  const tsr_kv_write_params p{2, 32, 4};
  auto [ref, got] = write_both(p, HostTensor::f32({1, 64}, x), HostTensor::i32({1}, {6}),
                               HostTensor(TSR_DTYPE_Q8_0, {2, 4, 64}));
  EXPECT_EQ(compare_blocks(got, ref).blocks_differing, 0);
  const auto* block = reinterpret_cast<const BlockQ8_0*>(got.bytes() + 6 * 2 * kBlockBytes);  // row 6
  EXPECT_EQ(block[0].d, 0x3c00);  // 1.0
  EXPECT_EQ(block[0].q[2], 3);    // 2.5
  EXPECT_EQ(block[0].q[3], -4);   // -3.5
  EXPECT_EQ(block[1].d, 0x3c00);
  EXPECT_EQ(block[1].q[1], 0);   // 0.25
  EXPECT_EQ(block[1].q[2], 1);   // 0.5
  EXPECT_EQ(block[1].q[30], 8);  // 7.5
}

class Q8_0KvErrors : public VulkanTest {};

// A bad slot is reported by the shader; the token's row is skipped, the others written.
TEST_F(Q8_0KvErrors, SlotOutsideTheCacheIsReportedAndItsRowSkipped) {
  const tsr_kv_write_params p{1, 32, 4};
  const HostTensor x = HostTensor::f32({2, 32}, random_values(64, 94));
  const GpuTensor gx(x, 4), slot(HostTensor::i32({2}, {8, 5}), 4);
  const GpuTensor cache(HostTensor(TSR_DTYPE_Q8_0, {2, 4, 32}), 2);
  EXPECT_THAT(error_of([&] { run_vulkan(TSR_OP_KV_WRITE, TSR_DTYPE_Q8_0, &p, {&gx, &slot}, cache); }),
              HasSubstr("kv_write: slot[0] = 8 is outside the cache's 8 rows"));
  HostTensor got = cache.read();
  HostTensor row5(TSR_DTYPE_Q8_0, {1, 32}), ref(TSR_DTYPE_Q8_0, {1, 32});
  std::memcpy(row5.bytes(), got.bytes() + 5 * kBlockBytes, kBlockBytes);
  cpu::quantize_kv_row_q8_0(x.to_f32().data() + 32, ref.bytes(), 32);
  const BlockDiff diff = compare_blocks(row5, ref);
  EXPECT_LE(diff.scale_steps, 1);
  EXPECT_LE(diff.quant, 1);
  std::memset(got.bytes() + 5 * kBlockBytes, 0, kBlockBytes);
  EXPECT_EQ(std::count(got.bytes(), got.bytes() + 8 * kBlockBytes, std::byte{0}), 8 * kBlockBytes)
      << "a row other than slot 5 was written";
}

TEST_F(Q8_0KvErrors, KvWriteRefusesRowsThatAreNotWholeBlocks) {
  const tsr_kv_write_params p{5, 8, 4};  // 5 KV heads of 8 = 40 columns
  const GpuTensor x(HostTensor(TSR_DTYPE_F32, {1, 40}), 4), slot(HostTensor::i32({1}, {0}), 4);
  const GpuTensor cache(HostTensor(TSR_DTYPE_Q8_0, {2, 4, 64}), 2);
  EXPECT_THAT(error_of([&] { run_vulkan(TSR_OP_KV_WRITE, TSR_DTYPE_Q8_0, &p, {&x, &slot}, cache); }),
              HasSubstr("kv_write: cache is q8_0 but n_kv_heads * head_dim = 40 is not a multiple of 32"));
}

TEST_F(Q8_0KvErrors, AttentionRefusesRowsThatAreNotWholeBlocks) {
  const tsr_attention_params p{5, 5, 8, 4, 1, 1, 0.35f, 0, 0.0f, 0.0f};  // 5 KV heads of 8 = 40 columns
  const GpuTensor q(HostTensor(TSR_DTYPE_F32, {1, 40}), 4);
  const GpuTensor k(HostTensor(TSR_DTYPE_Q8_0, {2, 4, 64}), 2), v(HostTensor(TSR_DTYPE_Q8_0, {2, 4, 64}), 2);
  const GpuTensor pos(HostTensor::i32({1}, {0}), 4), seq(HostTensor::i32({1}, {0}), 4);
  const GpuTensor tables(HostTensor::i32({1, 1}, {0}), 4), out(HostTensor(TSR_DTYPE_F32, {1, 40}), 4);
  EXPECT_THAT(
      error_of([&] { run_vulkan(TSR_OP_ATTENTION, TSR_DTYPE_Q8_0, &p, {&q, &k, &v, &pos, &seq, &tables}, out); }),
      HasSubstr("attention: k_cache is q8_0 but n_kv_heads * head_dim = 40 is not a multiple of 32"));
}

}  // namespace
}  // namespace tessera::vulkan::test
