// The CUDA GEMV's reading of weight rows (backends/cuda/ops/block_rows.h), compiled for
// the host: accumulate_row run for each of a warp's 32 lanes and summed, as the kernel
// does, against the CPU reference MATMUL for every weight dtype, with up to 8 rows of
// x. Tolerance 2e-5 of the largest value: f32 sums in another order than the reference.
#include "backends/cuda/ops/block_rows.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/host_tensor.h"
#include "backends/cpu/ops/matmul.h"

namespace tessera::cuda {
namespace {

using cpu::test::HostTensor;
using cpu::test::random_values;
using cpu::test::relative_error;

constexpr int kMaxRows = 8;

// out [n, m] as the GEMV computes it: per weight row, 32 lanes' partial sums added.
template <class B>
std::vector<float> warp_gemv(const HostTensor& w, const std::vector<float>& x, int n, int64_t k, int64_t m) {
  const tsr_tensor& d = w.desc();
  const auto* base = reinterpret_cast<const uint8_t*>(d.buffer->data + d.offset);
  const int64_t row_bytes = kit::dtype_row_bytes(d.dtype, k);
  std::vector<float> out(static_cast<size_t>(n * m));
  for (int64_t row = 0; row < m; ++row) {
    float total[kMaxRows] = {};
    for (int lane = 0; lane < 32; ++lane) {
      float acc[kMaxRows] = {};
      accumulate_row<B>(base + row * row_bytes, x.data(), k, k, n, lane, acc);
      for (int r = 0; r < n; ++r) total[r] += acc[r];
    }
    for (int r = 0; r < n; ++r) out[static_cast<size_t>(r * m + row)] = total[r];
  }
  return out;
}

struct Case {
  tsr_dtype dtype;
  int n;
};

class WarpRows : public ::testing::TestWithParam<Case> {};

TEST_P(WarpRows, SumToTheReferenceMatmul) {
  const Case c = GetParam();
  const int64_t k = 768, m = 9;
  const std::vector<float> xs = random_values(static_cast<size_t>(c.n * k), 51);
  const HostTensor x = HostTensor::f32({c.n, k}, xs);
  const HostTensor w = HostTensor::from_f32(c.dtype, {m, k}, random_values(static_cast<size_t>(m * k), 52));
  HostTensor ref(TSR_DTYPE_F32, {c.n, m});
  static cpu::CpuDevice device(1);
  ASSERT_EQ(cpu::test::run_kernel(device, cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, ref), TSR_OK)
      << device.last_error();
  std::vector<float> got;
  ASSERT_TRUE(with_block_type(c.dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    got = warp_gemv<B>(w, xs, c.n, k, m);
  }));
  EXPECT_LE(relative_error(got, ref.to_f32()), 2e-5);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  int n = 1;
  for (const tsr_dtype t : {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_BF16, TSR_DTYPE_Q8_0, TSR_DTYPE_Q4_0,
                            TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1, TSR_DTYPE_Q2_K, TSR_DTYPE_Q3_K,
                            TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_NL, TSR_DTYPE_IQ4_XS}) {
    all.push_back({t, n});
    n = n % kMaxRows + 1;  // 1 .. 8 rows of x across the dtypes
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, WarpRows, ::testing::ValuesIn(cases()), [](const auto& info) {
  return std::string(kit::dtype_traits(info.param.dtype).name) + "_rows" + std::to_string(info.param.n);
});

}  // namespace
}  // namespace tessera::cuda
