// ATTENTION over the paged KV cache (f32, f16 or q8_0): the kit's shape checks, then
// pos, seq and the block tables read back so the kit can check every entry the tokens
// will read before the launch (an error names the token and the entry); long contexts
// with few tokens split their keys (attention_split.h).
#include <algorithm>
#include <string>
#include <vector>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/op_params.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/attention_split.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/read_back.h"
#include "backends/cuda/ops/tensor_args.h"
#include "backends/cuda/runtime.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "attention";

}  // namespace

void attention(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 6, 6, kOp);
  const tsr_attention_params p = params_of<tsr_attention_params>(call, kOp);
  kit::check_attention_params(p);
  if (p.head_dim > kAttentionMaxHeadDim) {
    fail(kOp, "head_dim " + std::to_string(p.head_dim) + " exceeds the CUDA kernel's " +
                  std::to_string(kAttentionMaxHeadDim));
  }
  const DeviceTensor q = input(call, 0, kOp, "q");
  const DeviceTensor k_cache = input(call, 1, kOp, "k_cache");
  const DeviceTensor v_cache = input(call, 2, kOp, "v_cache");
  const DeviceTensor pos = input(call, 3, kOp, "pos");
  const DeviceTensor seq = input(call, 4, kOp, "seq");
  const DeviceTensor block_tables = input(call, 5, kOp, "block_tables");
  const DeviceTensor out = output(call, kOp);
  const kit::AttentionShape shape = kit::check_attention_shapes(p, q, k_cache, v_cache, pos, seq, block_tables, out);
  device.activate();
  const std::vector<int32_t> positions = read_back_i32(device, pos, kOp);
  const std::vector<int32_t> seqs = read_back_i32(device, seq, kOp);
  const std::vector<int32_t> tables = read_back_i32(device, block_tables, kOp);
  kit::check_attention_tokens(p, positions.data(), seqs.data(), tables.data(), shape.n_tokens, k_cache.shape[0]);
  int64_t longest = 0;  // the most keys a token attends to
  for (int64_t t = 0; t < shape.n_tokens; ++t) {
    longest = std::max<int64_t>(longest, positions[t] - kit::attention_first_key(p.window, positions[t]) + 1);
  }
  AttentionLaunch a{};
  a.splits = attention_splits(shape.n_tokens * p.n_heads, longest, Runtime::get().gpu(device.index()).sm_count);
  a.q = q.as<const float>();
  a.k_cache = k_cache.as<const uint8_t>();
  a.v_cache = v_cache.as<const uint8_t>();
  a.pos = pos.as<const int32_t>();
  a.seq = seq.as<const int32_t>();
  a.block_tables = block_tables.as<const int32_t>();
  a.out = out.as<float>();
  a.cache_dtype = k_cache.dtype;
  a.cache_row_bytes = k_cache.row_bytes();
  a.n_tokens = shape.n_tokens;
  a.p = p;
  if (a.splits == 1) {
    launch_attention(a, device.stream());
    return;
  }
  const uint64_t states = static_cast<uint64_t>(shape.n_tokens * p.n_heads) * a.splits * (p.head_dim + 2);
  CudaDevice::Scratch partials(device, states * sizeof(float));
  a.partials = static_cast<float*>(partials.data());
  launch_attention(a, device.stream());
}

}  // namespace tessera::cuda
