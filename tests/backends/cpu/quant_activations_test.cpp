// Activation quantisation (quant_activations.h): the vectorised copies (avx2, avx512)
// give the plain C++ copy's blocks bit for bit, on random rows and on the edge cases:
// all-zero blocks, NaN and infinite values, exact rounding ties, signed zeros, tiny and
// huge values, and equal magnitudes of both signs (the K layout scales by the first).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/isa.h"
#include "backends/cpu/ops/quant_activations.h"
#include "host_tensor.h"

namespace tessera::cpu {
#define TESSERA_DECLARE_QUANTIZERS(ns)                                \
  namespace ns {                                                      \
  void quantize_q8_row(const float* x, int64_t K, Q8Block* out);      \
  void quantize_q8k_row(const float* x, int64_t K, Q8KBlock* out);    \
  }
TESSERA_DECLARE_QUANTIZERS(isa_portable)
#if defined(__x86_64__)
TESSERA_DECLARE_QUANTIZERS(isa_avx2)
TESSERA_DECLARE_QUANTIZERS(isa_avx512)
#endif
#undef TESSERA_DECLARE_QUANTIZERS
}  // namespace tessera::cpu

namespace tessera::cpu::test {
namespace {

constexpr int64_t kRowLen = 1024;  // 32 blocks of 32, 4 super-blocks of 256
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random values with an edge case planted in each block of 32.
std::vector<float> edge_row(uint32_t seed) {
  std::vector<float> x = random_values(kRowLen, seed, -3.0f, 3.0f);
  auto block = [&](int b) { return x.data() + 32 * b; };
  std::fill(block(0), block(0) + 32, 0.0f);                   // all zero
  block(1)[5] = kNaN;                                         // NaN among numbers
  block(2)[0] = kInf;                                         // +inf: scale 0, inf * 0
  block(3)[31] = -kInf;
  for (int i = 0; i < 32; ++i) block(4)[i] = -0.0f;           // negative zeros
  for (int i = 0; i < 32; ++i) block(5)[i] = 0.5f + i;        // 127 / max is 127/31.5...
  for (int i = 0; i < 32; ++i) block(6)[i] = (i - 16) * 0.5f;  // exact ties once scaled
  block(6)[0] = 127.0f;                                       // scale 1: ties at .5
  for (int i = 0; i < 32; ++i) block(7)[i] = 1e-41f * (i + 1);  // subnormal
  // Super-block 1 (blocks 8-15): values below 1 but for -2.75 and, later, +2.75.
  for (int i = 256; i < 512; ++i) x[i] = std::fmod(x[i], 1.0f);
  x[256 + 66] = -2.75f;
  x[256 + 200] = 2.75f;
  block(16)[3] = 3e38f;                                       // huge
  for (int i = 0; i < 32; ++i) block(17)[i] = kNaN;           // all NaN
  for (int i = 0; i < 256; ++i) x[256 * 3 + i] = 0.0f;        // an all-zero super-block
  return x;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct Copy {
  CpuIsa level;
  void (*q8)(const float*, int64_t, Q8Block*);
  void (*q8k)(const float*, int64_t, Q8KBlock*);
};

std::vector<Copy> vector_copies() {
#if defined(__x86_64__)
  return {{CpuIsa::kAvx2, isa_avx2::quantize_q8_row, isa_avx2::quantize_q8k_row},
          {CpuIsa::kAvx512, isa_avx512::quantize_q8_row, isa_avx512::quantize_q8k_row}};
#else
  return {};
#endif
}

class QuantActivations : public ::testing::TestWithParam<uint32_t> {};

TEST_P(QuantActivations, VectorCopiesGiveThePlainCopysQ8Blocks) {
  const std::vector<float> x = edge_row(GetParam());
  std::vector<Q8Block> want(kRowLen / 32);
  isa_portable::quantize_q8_row(x.data(), kRowLen, want.data());
  // The plain copy's own numbers on a few blocks, so a shared mistake cannot hide.
  EXPECT_EQ(want[0].sum, 0);
  EXPECT_EQ(want[0].d, 0.0f);
  EXPECT_EQ(want[6].q[0], 127);
  EXPECT_EQ(want[6].q[1], -8);   // -7.5 -> -8 (ties to even)
  EXPECT_EQ(want[6].q[3], -6);   // -6.5 -> -6
  EXPECT_EQ(want[17].sum, 0);    // all NaN: nothing counts
  EXPECT_EQ(want[17].d, 0.0f);
  int tested = 0;
  for (const Copy& c : vector_copies()) {
    if (isa_supported() < c.level) continue;
    SCOPED_TRACE(isa_name(c.level));
    std::vector<Q8Block> got(kRowLen / 32);
    c.q8(x.data(), kRowLen, got.data());
    for (size_t b = 0; b < want.size(); ++b) EXPECT_TRUE(same_bits(got[b], want[b])) << "block " << b;
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "this processor runs no vectorised copy (portable only)";
}

// 25 blocks: the AVX-512 copy works sixteen blocks at a time, and here its second
// group is short.
TEST_P(QuantActivations, VectorCopiesGiveThePlainCopysQ8BlocksOnRowsOfSomeGroupsAndAPart) {
  const std::vector<float> x = edge_row(GetParam());
  constexpr int64_t kBlocks = 25;
  std::vector<Q8Block> want(kBlocks);
  isa_portable::quantize_q8_row(x.data(), kBlocks * 32, want.data());
  EXPECT_EQ(want[6].q[1], -8);
  int tested = 0;
  for (const Copy& c : vector_copies()) {
    if (isa_supported() < c.level) continue;
    SCOPED_TRACE(isa_name(c.level));
    std::vector<Q8Block> got(kBlocks + 1);
    got[kBlocks].sum = 12345;  // past the row: left as it was
    c.q8(x.data(), kBlocks * 32, got.data());
    for (int64_t b = 0; b < kBlocks; ++b) EXPECT_TRUE(same_bits(got[b], want[b])) << "block " << b;
    EXPECT_EQ(got[kBlocks].sum, 12345);
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "this processor runs no vectorised copy (portable only)";
}

TEST_P(QuantActivations, VectorCopiesGiveThePlainCopysQ8KBlocks) {
  const std::vector<float> x = edge_row(GetParam());
  std::vector<Q8KBlock> want(kRowLen / 256);
  isa_portable::quantize_q8k_row(x.data(), kRowLen, want.data());
  EXPECT_EQ(want[3].d, 0.0f);  // the all-zero super-block
  EXPECT_EQ(want[1].q[66], -127);  // -2.75 came first: it is the one scaled to -127...
  EXPECT_EQ(want[1].q[200], 127);  // ...and +2.75 lands on +127
  EXPECT_FLOAT_EQ(want[1].d, 2.75f / 127.0f);
  int tested = 0;
  for (const Copy& c : vector_copies()) {
    if (isa_supported() < c.level) continue;
    SCOPED_TRACE(isa_name(c.level));
    std::vector<Q8KBlock> got(kRowLen / 256);
    c.q8k(x.data(), kRowLen, got.data());
    for (size_t b = 0; b < want.size(); ++b) EXPECT_TRUE(same_bits(got[b], want[b])) << "super-block " << b;
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "this processor runs no vectorised copy (portable only)";
}

INSTANTIATE_TEST_SUITE_P(Seeds, QuantActivations, ::testing::Values(1u, 2u, 3u, 4u));

}  // namespace
}  // namespace tessera::cpu::test
