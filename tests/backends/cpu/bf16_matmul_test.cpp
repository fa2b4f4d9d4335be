// bf16 prefill on AMX-BF16 tiles or AVX512-BF16 (matmul_bf16.h): which path runs, and
// what rounding x to bf16 costs. The kernel's own arithmetic is checked against the reference on the same
// rounded x in optimised_kernels_test.cpp; here the result on the original x must stay
// within the rounding's bound, |out - exact| <= 2^-8 * sum_k |w_k x_k| (bf16 keeps 8
// significant bits) plus K f32 roundings of the sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "backends/cpu/amx_support.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

TEST(Bf16Prefill, PathIsTheProcessorsBestUnlessTheSwitchNamesAnother) {
  const char* env = std::getenv("TESSERA_CPU_BF16");
  const std::string request = env == nullptr ? "" : env;
  const bool dot = isa_in_use() == CpuIsa::kAvx512 && cpu_has_avx512_bf16() && request != "f32";
  const bool tiles = dot && request != "avx512-bf16" && amx_bf16_usable();
  EXPECT_STREQ(bf16_prefill_path(), tiles ? "amx-bf16" : dot ? "avx512-bf16" : "f32")
      << isa_choice() << ", AMX " << amx_status();
}

TEST(Bf16Prefill, RoundingXStaysWithinItsBoundOfTheExactProducts) {
  const int64_t n = 37, m = 70, k = 301;  // k odd: the last pair is padded
  const std::vector<float> x = random_values(n * k, 21, -2.0f, 2.0f);
  const HostTensor w = HostTensor::from_f32(TSR_DTYPE_BF16, {m, k}, random_values(m * k, 22));
  const std::vector<float> wv = w.to_f32();
  const HostTensor xt = HostTensor::f32({n, k}, x);
  CpuDevice device(2);
  HostTensor out(TSR_DTYPE_F32, {n, m});
  ASSERT_EQ(run_kernel(device, matmul_fast, TSR_OP_MATMUL, nullptr, {&xt, &w}, out), TSR_OK) << device.last_error();
  const std::vector<float> got = out.to_f32();
  double worst = 0.0;  // the largest error as a share of its bound
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      double exact = 0.0, magnitude = 0.0;
      for (int64_t t = 0; t < k; ++t) {
        const double p = static_cast<double>(x[i * k + t]) * wv[j * k + t];
        exact += p;
        magnitude += std::abs(p);
      }
      const double bound = (std::ldexp(1.0, -8) + k * std::ldexp(1.0, -23)) * magnitude;
      const double error = std::abs(got[i * m + j] - exact);
      ASSERT_LE(error, bound) << "out[" << i << "][" << j << "] on " << bf16_prefill_path();
      worst = std::max(worst, error / bound);
    }
  }
  // On the widening path no rounding of x is left: the error is f32 summation only.
  if (std::string(bf16_prefill_path()) == "f32") {
    EXPECT_LT(worst, 0.01);
  }
}

}  // namespace
}  // namespace tessera::cpu::test
