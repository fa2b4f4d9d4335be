// Index errors found by GPU kernels instead of the host: a kernel that meets a bad
// index (a row id outside a table, a block-table entry outside the cache, a route naming
// no expert) skips the read and writes a report into the device's error word; the host
// reads the word when it next waits for the device and throws the message of the call
// that reported. So a step never waits for the device to check its indices, yet bad
// input still comes back as an error naming the op, the index and the value.
//
// The codes, the checks the kernels evaluate (TSR_HD) and the messages live here, so the
// Vulkan and CUDA backends report the same calls with the same words, and the CPU's host
// checks share the arithmetic.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/plugin_abi.h>

#include <tessera/kit/host_device.h>

namespace tessera::kit {

// 16 bytes of device memory shared by a device's kernels. The first report sets a
// non-zero code with the reporting call's id and its index and value; later reports
// find the code set and leave the word alone. The host zeroes it after reading a report.
struct DeviceErrorWord {
  uint32_t code;
  uint32_t call;
  int32_t index;
  int32_t value;
};
static_assert(sizeof(DeviceErrorWord) == 16, "kernels and shaders write the word as four 32-bit fields");

// The message of one call's report (code, index, value).
using DeviceErrorText = std::function<std::string(uint32_t code, int32_t index, int32_t value)>;

// The message makers of the calls a device ran since the host last read its error
// word; a call's id is its place in the list.
class DeviceCalls {
 public:
  // The id of the next call; `text` explains its reports (empty: a call that never reports).
  uint32_t add(DeviceErrorText text);
  uint32_t next_id() const { return static_cast<uint32_t>(texts_.size()); }
  // Whether a listed call may report (has a text).
  bool may_report() const { return reporting_ > 0; }
  // The message of `word` (its code non-zero) from its call's text, or "a kernel reported
  // error <code>" for an id not listed; the list is emptied either way.
  std::string take_message(const DeviceErrorWord& word);
  void clear();

 private:
  std::vector<DeviceErrorText> texts_;
  size_t reporting_ = 0;
};

// ---- GET_ROWS, KV_WRITE, MOE_MATMUL: code 1, index the position in the id tensor ------

inline constexpr uint32_t kRowIdOutside = 1;

// "<op>: <name>[<i>] = <id> is outside the <what>'s <limit> rows" (check_row_ids's words).
std::string row_id_message(std::string_view op, std::string_view name, std::string_view what, int64_t i, int64_t id,
                           int64_t limit);
DeviceErrorText row_id_text(std::string_view op, std::string_view name, std::string_view what, int64_t limit);

// Whether route[t, j] as stored names an expert: a whole number in 0 .. n_experts - 1
// (NaN does not).
TSR_HD inline bool route_names_expert(float stored, int64_t n_experts) {
  return stored >= 0.0f && stored < static_cast<float>(n_experts) && stored == static_cast<float>(static_cast<int64_t>(stored));
}
// MOE_MATMUL's report of route slot `index` (t * k + j) naming `value`.
DeviceErrorText route_text(int64_t n_experts);

// ---- ATTENTION: index the token --------------------------------------------------------

enum AttentionFault : uint32_t {
  kAttentionSeqOutside = 1,        // value: the token's seq
  kAttentionNegativePosition = 2,  // value: the position
  kAttentionBlockIndexOutside = 3, // value: the position, whose block index exceeds the tables
  kAttentionBlockOutside = 4,      // value: the block the table names
};

// The fault of a token before its block table is read (0: none): its seq must name one of
// the n_seqs tables, its position be >= 0 and its block index fit a table of
// max_blocks_per_seq entries. `value` is set to what the report carries.
TSR_HD inline uint32_t attention_token_fault(int32_t seq, int32_t position, int32_t n_seqs, int32_t block_size,
                                             int32_t max_blocks_per_seq, int32_t& value) {
  if (seq < 0 || seq >= n_seqs) {
    value = seq;
    return kAttentionSeqOutside;
  }
  value = position;
  if (position < 0) return kAttentionNegativePosition;
  if (position / block_size >= max_blocks_per_seq) return kAttentionBlockIndexOutside;
  return 0;
}

// Whether a block-table entry names no block of a cache of n_cache_blocks.
TSR_HD inline bool attention_block_outside(int32_t block, int64_t n_cache_blocks) {
  return block < 0 || block >= n_cache_blocks;
}

// "attention: token <t> ..." for codes 1 to 3, as the host check words them too.
std::string attention_token_message(uint32_t code, int64_t token, int32_t value, const tsr_attention_params& p);
// Every code; code 4 reads "token <t> reads block <b> from its block table but the cache
// has <n> blocks".
DeviceErrorText attention_text(const tsr_attention_params& p, int64_t n_cache_blocks);

}  // namespace tessera::kit
