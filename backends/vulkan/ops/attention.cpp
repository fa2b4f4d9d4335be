// ATTENTION over the paged KV cache (see plugin_abi.h for the tensors): one workgroup
// per (token, query head); for prefill one per (tile of consecutive tokens, head); or for
// long contexts and few groups split-KV: one per (token, head, split) writing partials to
// scratch, then a merge per (token, head).
// Shapes and params are checked here; the sequence ids, positions and block-table
// entries live on the device and are checked by the shader, which reports the first
// bad one through the error word.
#include <cmath>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/attention_path.h"
#include "backends/vulkan/ops/launch.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/ops/tensor_args.h"

namespace tessera::vulkan {
namespace {

constexpr const char* kOp = "attention";
constexpr uint32_t kGroup = 64;       // keys scored at once, one per invocation
constexpr int32_t kMaxHeadDim = 1024; // q of one head is staged in shared memory

struct Push {  // attention.comp
  VkDeviceAddress q, k_cache, v_cache, pos, seq, block_tables, out, status;
  uint32_t n_tokens, n_heads, n_kv_heads, block_size, n_seqs, max_blocks, n_cache_blocks, window;
  float scale, softcap;
  uint32_t call_id;
  float alibi_max_bias;
  VkDeviceAddress partials;  // n_splits > 1 only
  uint32_t n_splits;
  uint32_t unused = 0;  // no padding: equal steps must have equal push bytes (step replay)
};

static_assert(kAttentionMaxSplits <= 32, "attention_merge.comp holds MAX_SPLITS = 32 weights in shared memory");

struct MergePush {  // attention_merge.comp
  VkDeviceAddress partials, out, status;
  uint32_t n_groups, n_heads, n_splits, call_id;
};

void check_params(const tsr_attention_params& p) {
  kit::check_attention_params(p);
  if (p.head_dim > kMaxHeadDim) {
    fail(kOp, "head_dim " + std::to_string(p.head_dim) + " exceeds the Vulkan kernel's " +
                  std::to_string(kMaxHeadDim));
  }
}

}  // namespace

void attention(VulkanDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 6, 6, kOp);
  const tsr_attention_params p = params_of<tsr_attention_params>(call, kOp);
  check_params(p);
  const DeviceTensor q = input(call, 0, kOp, "q");
  const DeviceTensor k_cache = input(call, 1, kOp, "k_cache");
  const DeviceTensor v_cache = input(call, 2, kOp, "v_cache");
  const DeviceTensor pos = input(call, 3, kOp, "pos");
  const DeviceTensor seq = input(call, 4, kOp, "seq");
  const DeviceTensor block_tables = input(call, 5, kOp, "block_tables");
  const DeviceTensor out = output(call, kOp);
  const kit::AttentionShape shape = kit::check_attention_shapes(p, q, k_cache, v_cache, pos, seq, block_tables, out);
  const int64_t n_tokens = shape.n_tokens;
  const int64_t n_cache_blocks = k_cache.shape[0];
  const ErrorText on_error = kit::attention_text(p, n_cache_blocks);

  const uint64_t groups = static_cast<uint64_t>(n_tokens) * static_cast<uint64_t>(p.n_heads);
  const auto n_splits = static_cast<uint32_t>(attention_splits(n_tokens, p.n_heads, p.max_blocks_per_seq, p.block_size));
  // Partials: (max, sum, acc[head_dim]) f32 per (token, head, split).
  const uint64_t partial_bytes = groups * n_splits * (static_cast<uint64_t>(p.head_dim) + 2) * sizeof(float);
  const VkDeviceAddress partials = n_splits > 1 ? device.scratch(partial_bytes).address() : 0;
  const Push push{q.address, k_cache.address, v_cache.address, pos.address, seq.address, block_tables.address,
                  out.address, device.error_word_address(), static_cast<uint32_t>(n_tokens),
                  static_cast<uint32_t>(p.n_heads), static_cast<uint32_t>(p.n_kv_heads),
                  static_cast<uint32_t>(p.block_size), static_cast<uint32_t>(p.n_seqs),
                  static_cast<uint32_t>(p.max_blocks_per_seq), static_cast<uint32_t>(n_cache_blocks),
                  static_cast<uint32_t>(p.window), p.scale, p.softcap, device.next_call_id(), p.alibi_max_bias,
                  partials, n_splits};
  const std::vector<uint32_t> spec = {kGroup, static_cast<uint32_t>(k_cache.dtype), static_cast<uint32_t>(p.head_dim)};
  if (attention_tiled(n_tokens, p.n_seqs, p.head_dim, n_splits)) {
    const auto tile = static_cast<uint32_t>(attention_tile_tokens(p.head_dim));
    const std::vector<uint32_t> tiled_spec = {kGroup, static_cast<uint32_t>(k_cache.dtype),
                                              static_cast<uint32_t>(p.head_dim), tile};
    const uint64_t tiles = (static_cast<uint64_t>(n_tokens) + tile - 1) / tile;
    device.dispatch(make_dispatch(ShaderId::attention_tiled, tiled_spec, push,
                                  grid_for(device, tiles * static_cast<uint64_t>(p.n_heads), kOp)),
                    on_error);
    return;
  }
  if (n_splits == 1) {
    device.dispatch(make_dispatch(ShaderId::attention, spec, push, grid_for(device, groups, kOp)), on_error);
    return;
  }
  // Split-KV: the splits write partials and leave errors to the merge, which reports
  // them after zeroing the row (outside a step each dispatch is its own submission).
  // Each dispatch ends with a barrier, so the merge sees every partial.
  device.dispatch(make_dispatch(ShaderId::attention, spec, push, grid_for(device, groups * n_splits, kOp)));
  const MergePush merge{partials, out.address, device.error_word_address(), static_cast<uint32_t>(groups),
                        static_cast<uint32_t>(p.n_heads), n_splits, device.next_call_id()};
  const std::vector<uint32_t> merge_spec = {kGroup, static_cast<uint32_t>(p.head_dim)};
  device.dispatch(make_dispatch(ShaderId::attention_merge, merge_spec, merge, grid_for(device, groups, kOp)),
                  on_error);
}

}  // namespace tessera::vulkan
