// How many parts the CUDA ATTENTION kernel splits each (token, head)'s keys into
// (flash decoding): more only when few (token, head) pairs would leave the GPU idle and
// the keys are many. Host code; a header so the CPU test can check the rule.
#pragma once

#include <algorithm>
#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::cuda {

inline constexpr int64_t kKeysPerSplit = 256;  // the fewest keys worth a split of their own
inline constexpr int32_t kMaxSplits = 64;

// The most keys a token of the call can attend to, from what the host knows without
// reading the positions (they stay on the device): the reach of a block table
// (max_blocks_per_seq * block_size), or the window where that is shorter.
inline int64_t longest_context(const tsr_attention_params& p) {
  const int64_t reach = int64_t{p.max_blocks_per_seq} * p.block_size;
  return p.window > 0 ? std::min<int64_t>(reach, p.window) : reach;
}

// `pairs` = tokens * heads, `longest` the most keys any token may attend to, `sm_count` the
// GPU's multiprocessors: enough warps for about 8 per multiprocessor, each split at
// least kKeysPerSplit keys, at most kMaxSplits; 1 for contexts under 2 * kKeysPerSplit.
inline int32_t attention_splits(int64_t pairs, int64_t longest, int32_t sm_count) {
  if (pairs <= 0 || longest < 2 * kKeysPerSplit) return 1;
  const int64_t wanted = (int64_t{8} * sm_count + pairs - 1) / pairs;
  const int64_t fit = longest / kKeysPerSplit;
  return static_cast<int32_t>(std::clamp<int64_t>(std::min(wanted, fit), 1, kMaxSplits));
}

}  // namespace tessera::cuda
