// The optimised ROPE keeps the angles of its last small call (rope.cpp) and reuses them
// only for the same parameters, freq_factors and positions: a sequence of calls that
// each change one of those, or only what the angles do not depend on (head count, head
// size, pairing, x), must give the reference kernel's outputs bit for bit, call by call.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/ops/rope.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

struct RopeCall {
  std::string what;
  tsr_rope_params p;
  std::vector<int32_t> pos;
  std::optional<std::vector<float>> factors;
  uint32_t x_seed;
};

std::vector<float> run(KernelBody kernel, CpuDevice& device, const RopeCall& c) {
  const int64_t n = static_cast<int64_t>(c.pos.size()), width = int64_t{c.p.n_heads} * c.p.head_dim;
  const HostTensor x = HostTensor::f32({n, width}, random_values(static_cast<size_t>(n * width), c.x_seed));
  const HostTensor pos = HostTensor::i32({n}, c.pos);
  std::optional<HostTensor> factors;
  std::vector<const HostTensor*> inputs{&x, &pos};
  if (c.factors) {
    factors = HostTensor::f32({static_cast<int64_t>(c.factors->size())}, *c.factors);
    inputs.push_back(&*factors);
  }
  HostTensor out(TSR_DTYPE_F32, {n, width});
  EXPECT_EQ(run_kernel(device, kernel, TSR_OP_ROPE, &c.p, inputs, out), TSR_OK) << device.last_error();
  return out.to_f32();
}

TEST(RopeAngleCache, EveryCallGivesTheReferenceOutputsWhateverItChanges) {
  const tsr_rope_params q = rope_params(10000.0f, 1.0f, 9, 64, 64, TSR_ROPE_NEOX);
  tsr_rope_params k = q;
  k.n_heads = 3;
  tsr_rope_params theta = q;
  theta.theta = 500000.0f;
  tsr_rope_params partial = rope_params(10000.0f, 1.0f, 4, 64, 32, TSR_ROPE_INTERLEAVED);
  const std::vector<float> ones(16, 1.0f), twos(16, 2.0f);
  const std::vector<RopeCall> calls = {
      {"q at 5", q, {5}, std::nullopt, 1},
      {"k at 5 (fewer heads)", k, {5}, std::nullopt, 2},
      {"q at 5, other x", q, {5}, std::nullopt, 3},
      {"q at 6", q, {6}, std::nullopt, 4},
      {"two tokens", q, {6, 7}, std::nullopt, 5},
      {"two tokens, other order", q, {7, 6}, std::nullopt, 6},
      {"other theta", theta, {7, 6}, std::nullopt, 7},
      {"yarn", yarn_params(theta, 1.0f, 1.0f, 32.0f, 1.0f, 4096), {7, 6}, std::nullopt, 8},
      {"partial, interleaved", partial, {7, 6}, std::nullopt, 9},
      {"factors of 1", partial, {7, 6}, ones, 10},
      {"factors of 2", partial, {7, 6}, twos, 11},
      {"no factors again", partial, {7, 6}, std::nullopt, 12},
  };
  CpuDevice device(2);
  for (const RopeCall& c : calls) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(run(rope_fast, device, c), run(rope_ref, device, c));
  }
}

}  // namespace
}  // namespace tessera::cpu::test
