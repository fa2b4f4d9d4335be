// How much memory the paged KV cache gets (--kv-mem): bytes ("512M", "2G", "1.5GiB"),
// a fraction of the device's memory left after the weights ("0.5"), or a token count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/util/format_bytes.h"

namespace tessera {

struct KvBudget {
  enum class Kind { Tokens, Bytes, DeviceFraction };
  Kind kind = Kind::Tokens;
  double value = 0;  // tokens, bytes, or a fraction in (0, 1]; Tokens 0 = the caller's default

  static KvBudget tokens(int64_t n) { return {Kind::Tokens, static_cast<double>(n)}; }
  static KvBudget bytes(uint64_t n) { return {Kind::Bytes, static_cast<double>(n)}; }
  static KvBudget device_fraction(double f) { return {Kind::DeviceFraction, f}; }
};

// Parses --kv-mem: an integer with an optional K, M, G or T suffix (powers of 1024;
// "KiB", "MB", "G" and "g" all accepted; "B" for plain bytes) is bytes, as is a bare
// integer above 1; a number in (0, 1) or a percentage ("50%", "100%") is a fraction of
// the device memory. A bare "1" is refused as ambiguous. Throws tessera::Error naming
// the text and the accepted forms.
KvBudget parse_kv_budget(std::string_view text);

// Inputs of resolve_kv_blocks.
struct KvBudgetContext {
  int32_t block_size = 16;
  uint64_t bytes_per_token = 0;      // over all layers, K and V
  uint64_t device_memory_bytes = 0;  // 0 = unknown
  uint64_t weight_bytes = 0;         // already on the device
  int64_t default_tokens = 0;        // what KvBudget::tokens(0) stands for
};

// Blocks the budget holds (rounded down; token counts rounded up). Throws when a
// fraction is asked of a device whose memory is unknown, or when the budget does not
// hold a single block (saying how many bytes one block takes).
int64_t resolve_kv_blocks(const KvBudget& budget, const KvBudgetContext& context);

}  // namespace tessera
