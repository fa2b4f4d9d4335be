// The CUDA KV_WRITE and paged ATTENTION kernels against the CPU reference: KV_WRITE
// into f32, f16 and q8_0 caches exactly (both sides use the kit's conversions),
// ATTENTION on the cases every backend shares (2e-5) and on long decodes (the index
// errors are in index_errors_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "backends/attention_cases.h"
#include "backends/gpu_kernel_checks.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/kv_write.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

using cpu::test::random_values;
using cpu::test::relative_error;
using gpu_test::AttentionCase;
using gpu_test::AttentionInputs;
using gpu_test::make_inputs;
using gpu_test::pointers;
using gpu_test::reference_of;

using gpu_test::KvWriteCase;

class CudaKvWrite : public CudaParamTest<KvWriteCase> {};

TEST_P(CudaKvWrite, WritesTheSlotsExactlyAndKeepsTheOtherRows) {
  gpu_test::expect_kv_write_like_reference(GetParam(), 0.0);  // the kit's conversions on both sides
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaKvWrite,
                         ::testing::Values(KvWriteCase{TSR_DTYPE_F32, 4, 16, 4, 8, 5},
                                           KvWriteCase{TSR_DTYPE_F16, 9, 7, 3, 18, 40},
                                           KvWriteCase{TSR_DTYPE_Q8_0, 4, 16, 4, 8, 7},
                                           KvWriteCase{TSR_DTYPE_Q8_0, 5, 7, 3, 64, 30}),
                         [](const auto& info) { return gpu_test::kv_write_case_name(info.param); });

std::vector<float> run_attention(const AttentionCase& c, const AttentionInputs& in) {
  return run_on_backend(TSR_OP_ATTENTION, c.dtype, &in.params, pointers(in.tensors),
                        HostTensor(TSR_DTYPE_F32, {in.n_tokens, int64_t{c.n_heads} * c.head_dim}),
                        {36, odd_offset(c.dtype, 24), odd_offset(c.dtype, 257), 4, 68, 260, 516});
}

double attention_error(const AttentionCase& c, const AttentionInputs& in) {
  return relative_error(run_attention(c, in), reference_of(in).to_f32());
}

class CudaAttention : public CudaParamTest<AttentionCase> {};

TEST_P(CudaAttention, MatchesTheReference) {
  const AttentionCase c = GetParam();
  EXPECT_LT(attention_error(c, make_inputs(c)), 2e-5);
}

std::vector<AttentionCase> cuda_attention_cases() {
  std::vector<AttentionCase> cases = gpu_test::common_attention_cases();
  cases.push_back({"long_decode_head_dim_256_q8_0", TSR_DTYPE_Q8_0, 8, 2, 256, 16, {3000, 40}, {1, 1}});
  cases.push_back({"long_decode_window_f16", TSR_DTYPE_F16, 8, 4, 64, 16, {3000, 1200}, {1, 2}, 100});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaAttention, ::testing::ValuesIn(cuda_attention_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera::cuda::test
