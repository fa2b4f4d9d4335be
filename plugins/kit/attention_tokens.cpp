// The block-table check of ATTENTION (see attention_tokens.h).
#include <tessera/kit/attention_tokens.h>

#include <string>

#include <tessera/kit/kernel_error.h>

namespace tessera::kit {
namespace {

constexpr const char* kOp = "attention";

}  // namespace

void check_attention_tokens(const tsr_attention_params& p, const int32_t* pos, const int32_t* seq,
                            const int32_t* block_tables, int64_t n_tokens, int64_t n_cache_blocks) {
  for (int64_t t = 0; t < n_tokens; ++t) {
    const int32_t s = seq[t];
    const int32_t position = pos[t];
    const std::string who = "token " + std::to_string(t);
    if (s < 0 || s >= p.n_seqs) {
      fail(kOp, who + " has seq " + std::to_string(s) + " outside the " + std::to_string(p.n_seqs) + " block tables");
    }
    if (position < 0) fail(kOp, who + " has negative position " + std::to_string(position));
    const int64_t last_block = position / p.block_size;
    if (last_block >= p.max_blocks_per_seq) {
      fail(kOp, who + " at position " + std::to_string(position) + " needs block index " +
                    std::to_string(last_block) + " but block tables hold " + std::to_string(p.max_blocks_per_seq) +
                    " blocks per sequence");
    }
    const int32_t* table = block_tables + static_cast<int64_t>(s) * p.max_blocks_per_seq;
    for (int64_t b = attention_first_key(p.window, position) / p.block_size; b <= last_block; ++b) {
      if (table[b] < 0 || table[b] >= n_cache_blocks) {
        fail(kOp, "block table of sequence " + std::to_string(s) + " names block " + std::to_string(table[b]) +
                      " at index " + std::to_string(b) + " but the cache has " + std::to_string(n_cache_blocks) +
                      " blocks");
      }
    }
  }
}

}  // namespace tessera::kit
