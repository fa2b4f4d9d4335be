// The CUDA RoPE arithmetic (backends/cuda/ops/rope_math.h), compiled for the host,
// against the CPU reference ROPE: both pairings, partial rotation, linear scaling,
// YaRN, Llama 3.1 bands and GGUF freq_factors, with the per-call terms from the kit.
// Tolerance as for the GPU kernels: 2e-6 plus 1.2e-7 per unit of the largest position
// (an f32 angle of p radians carries about p * 6e-8 of rounding; the reference is double).
#include "backends/cuda/ops/rope_math.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/host_tensor.h"
#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/rope.h"

namespace tessera::cuda {
namespace {

using cpu::test::HostTensor;
using cpu::test::llama3_params;
using cpu::test::random_ids;
using cpu::test::random_values;
using cpu::test::relative_error;
using cpu::test::rope_params;
using cpu::test::yarn_params;

struct RopeCase {
  const char* name;
  int32_t pairing, n_tokens, n_heads, head_dim, n_rot;
  float theta, freq_scale;
  int32_t max_pos;
  float ext_factor;  // > 0: YaRN with attn_factor 0.9, betas 32 and 1 over n_ctx_orig
  bool llama3;       // factor 8, low 1, high 4 over n_ctx_orig
  int32_t n_ctx_orig;
  bool factors;      // random freq_factors in [1, 40)
};

class RopeMath : public ::testing::TestWithParam<RopeCase> {};

TEST_P(RopeMath, MatchesTheCpuReference) {
  const RopeCase c = GetParam();
  const int64_t width = int64_t{c.n_heads} * c.head_dim;
  const std::vector<float> xs = random_values(static_cast<size_t>(c.n_tokens * width), 41);
  std::vector<int32_t> positions = random_ids(static_cast<size_t>(c.n_tokens), c.max_pos + 1, 42);
  positions[0] = c.max_pos;
  tsr_rope_params p = rope_params(c.theta, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing);
  if (c.ext_factor > 0.0f) p = yarn_params(p, c.ext_factor, 0.9f, 32.0f, 1.0f, c.n_ctx_orig);
  if (c.llama3) p = llama3_params(p, 8.0f, 1.0f, 4.0f, c.n_ctx_orig);
  const std::vector<float> factors = random_values(static_cast<size_t>(c.n_rot / 2), 73, 1.0f, 40.0f);

  const HostTensor x = HostTensor::f32({c.n_tokens, width}, xs);
  const HostTensor pos = HostTensor::i32({c.n_tokens}, positions);
  const HostTensor factor_tensor = HostTensor::f32({c.n_rot / 2}, factors);
  std::vector<const HostTensor*> inputs{&x, &pos};
  if (c.factors) inputs.push_back(&factor_tensor);
  HostTensor ref(TSR_DTYPE_F32, {c.n_tokens, width});
  static cpu::CpuDevice device(1);
  ASSERT_EQ(cpu::test::run_kernel(device, cpu::rope_ref, TSR_OP_ROPE, &p, inputs, ref), TSR_OK) << device.last_error();

  RopeLaunch r;
  r.freq_factors = c.factors ? factors.data() : nullptr;
  r.n_heads = p.n_heads;
  r.head_dim = p.head_dim;
  r.n_rot = p.n_rot;
  r.neox = p.pairing == TSR_ROPE_NEOX;
  r.freq_scale = p.freq_scale;
  r.ext_factor = p.ext_factor;
  r.llama3_factor = p.llama3_factor;
  r.llama3_low = p.llama3_low_freq_factor;
  r.llama3_high = p.llama3_high_freq_factor;
  r.terms = kit::rope_terms(p);
  std::vector<float> got(xs.size());
  for (int64_t t = 0; t < c.n_tokens; ++t) {
    for (int64_t h = 0; h < c.n_heads; ++h) {
      const float* head = xs.data() + t * width + h * c.head_dim;
      for (int d = 0; d < c.head_dim; ++d) got[t * width + h * c.head_dim + d] = rope_element(r, head, d, positions[t]);
    }
  }
  EXPECT_LT(relative_error(got, ref.to_f32()), 2e-6 + 1.2e-7 * c.max_pos);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RopeMath,
    ::testing::Values(RopeCase{"interleaved", TSR_ROPE_INTERLEAVED, 5, 8, 8, 8, 10000.0f, 1.0f, 40, 0, false, 0, false},
                      RopeCase{"neox", TSR_ROPE_NEOX, 5, 8, 8, 8, 10000.0f, 1.0f, 40, 0, false, 0, false},
                      RopeCase{"partial_scaled", TSR_ROPE_INTERLEAVED, 7, 3, 10, 6, 10000.0f, 0.25f, 300, 0, false, 0,
                               false},
                      RopeCase{"neox_128", TSR_ROPE_NEOX, 3, 2, 128, 128, 10000.0f, 1.0f, 511, 0, false, 0, false},
                      RopeCase{"yarn_neox", TSR_ROPE_NEOX, 7, 3, 10, 8, 10000.0f, 0.25f, 300, 1.0f, false, 4096, false},
                      RopeCase{"yarn_interleaved", TSR_ROPE_INTERLEAVED, 5, 2, 64, 64, 10000.0f, 0.125f, 500, 1.0f,
                               false, 4096, false},
                      RopeCase{"llama3_neox", TSR_ROPE_NEOX, 7, 3, 10, 8, 500000.0f, 1.0f, 599, 0, true, 8192, false},
                      RopeCase{"llama3_small_ctx", TSR_ROPE_NEOX, 9, 2, 8, 8, 10000.0f, 0.5f, 90, 0, true, 128, false},
                      RopeCase{"factors_interleaved", TSR_ROPE_INTERLEAVED, 3, 5, 18, 6, 10000.0f, 0.25f, 300, 0,
                               false, 0, true},
                      RopeCase{"llama3_and_factors", TSR_ROPE_NEOX, 5, 1, 66, 64, 500000.0f, 1.0f, 500, 0, true, 8192,
                               true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::cuda
