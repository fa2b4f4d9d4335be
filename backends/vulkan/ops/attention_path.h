// Which ATTENTION kernel a call takes, from what the host knows: how many parts split-KV
// cuts each (token, head)'s keys into, or tiles of prefill tokens; header-only for the tests.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessera::vulkan {

// Workgroups one ATTENTION call should launch to keep a GPU busy: a few per compute
// unit of a large GPU. A call with at least this many (token, head) groups already
// fills the device with one workgroup per group and is never split.
inline constexpr int64_t kAttentionTargetGroups = 256;
// Contexts up to this many keys are never split: the serial walk is short, and the
// second dispatch (the merge) would cost more than it saves.
inline constexpr int64_t kAttentionMinSplitContext = 512;
// The fewest keys a split is sized for (4 chunks of 64), so that a split's work stays
// well above the merge's per-split cost of HEAD_DIM + 2 floats.
inline constexpr int64_t kAttentionKeysPerSplit = 256;
// At most this many splits (attention_merge.comp holds one weight per split in shared memory).
inline constexpr int64_t kAttentionMaxSplits = 32;

// S, the number of splits: 1 (today's single dispatch) when groups = n_tokens * n_heads
// >= kAttentionTargetGroups or the longest context the block tables allow
// (max_blocks_per_seq * block_size; the positions themselves live on the device) is at
// most kAttentionMinSplitContext keys; otherwise
//   S = min(floor(max_ctx / kAttentionKeysPerSplit), ceil(kAttentionTargetGroups / groups),
//           kAttentionMaxSplits),
// enough splits to fill the device, none shorter than kAttentionKeysPerSplit keys of
// the longest context. The shader divides each token's own keys first..pos into S
// ranges of whole 64-key chunks, so a short sequence leaves its last splits empty.
inline int64_t attention_splits(int64_t n_tokens, int64_t n_heads, int64_t max_blocks_per_seq, int64_t block_size) {
  const int64_t groups = n_tokens * n_heads;
  const int64_t max_ctx = max_blocks_per_seq * block_size;
  if (groups <= 0 || groups >= kAttentionTargetGroups || max_ctx <= kAttentionMinSplitContext) return 1;
  const int64_t by_length = max_ctx / kAttentionKeysPerSplit;  // >= 2 here
  const int64_t by_groups = (kAttentionTargetGroups + groups - 1) / groups;
  return std::max<int64_t>(1, std::min({by_length, by_groups, kAttentionMaxSplits}));
}

// Prefill ATTENTION with several queries per workgroup (attention_tiled.comp): each
// workgroup takes this many consecutive tokens of one query head, their q staged in
// shared memory as tokens * head_dim floats, kept within 16 KiB (half of the 32 KiB
// every device offers): 8 tokens up to head_dim 512, 4 at 1024.
inline int64_t attention_tile_tokens(int64_t head_dim) {
  return std::clamp<int64_t>(4096 / std::max<int64_t>(head_dim, 1), 1, 8);
}

// Whether an unsplit call (n_splits == 1) takes the tiled path: at least two tiles of
// tokens, and more tokens than sequences (a step of pure decode, one token per
// sequence, has no keys to share between its tokens and keeps one workgroup per token).
inline bool attention_tiled(int64_t n_tokens, int64_t n_seqs, int64_t head_dim, int64_t n_splits) {
  return n_splits == 1 && n_tokens >= 2 * attention_tile_tokens(head_dim) && n_tokens > n_seqs;
}

}  // namespace tessera::vulkan
