// ATTENTION over the paged KV cache (f32, f16 or q8_0): the kit's shape checks on the
// host; pos, seq and the block-table entries stay on the device, where the kernel checks
// them and reports a bad one through the error word (kit/device_errors.h). Long
// contexts with few tokens split their keys (attention_split.h).
#include <string>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>

#include "backends/cuda/device.h"
#include "backends/cuda/ops/attention_split.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
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
  if (shape.n_tokens == 0) return;
  device.activate();
  AttentionLaunch a{};
  a.splits = attention_splits(shape.n_tokens * p.n_heads, longest_context(p), Runtime::get().gpu(device.index()).sm_count);
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
  a.n_cache_blocks = k_cache.shape[0];
  a.p = p;
  a.errors = device.errors_for(kit::attention_text(p, a.n_cache_blocks));
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
