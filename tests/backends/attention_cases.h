// The inputs of ATTENTION tests that every backend shares: a case (heads, KV heads,
// head_dim, block size, sequences with their new tokens, window, softcap, ALiBi), its
// tensors (caches filled at random, each sequence's blocks scattered through the cache,
// unused table entries -1, queries of all sequences interleaved), the CPU reference's
// output, and the common case list (GQA / MQA, f32, f16 and q8_0 caches, windows,
// softcaps, ALiBi with head counts that are not powers of two).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

#include "backends/cpu/host_tensor.h"

namespace tessera::gpu_test {

using cpu::test::HostTensor;

// One ATTENTION case.
struct AttentionCase {
  std::string name;
  tsr_dtype dtype;
  int32_t n_heads, n_kv_heads, head_dim, block_size;
  std::vector<int32_t> seq_lens;    // tokens in each sequence after this step
  std::vector<int32_t> new_tokens;  // the last new_tokens[s] of them are queries
  int32_t window = 0;
  float softcap = 0.0f;
  float alibi_max_bias = 0.0f;
  bool in_order = false;  // tokens by sequence, then position (as a prefill step packs them)
};

// The inputs of one ATTENTION call.
struct AttentionInputs {
  std::vector<HostTensor> tensors;  // q, k_cache, v_cache, pos, seq, block_tables
  tsr_attention_params params{};
  int64_t n_tokens = 0;
};

// The tensors of case `c` (seeded: the same inputs every run).
AttentionInputs make_inputs(const AttentionCase& c);

// Pointers to each of `tensors`, in order.
std::vector<const HostTensor*> pointers(const std::vector<HostTensor>& tensors);

// The CPU reference's output for `in`; fails the test when the reference fails.
HostTensor reference_of(const AttentionInputs& in);

// The cases every backend's kernel must match the reference on (at 2e-5).
std::vector<AttentionCase> common_attention_cases();

}  // namespace tessera::gpu_test
