// The call list and the messages of device-reported index errors (see device_errors.h).
#include <tessera/kit/device_errors.h>

#include <utility>

namespace tessera::kit {

uint32_t DeviceCalls::add(DeviceErrorText text) {
  if (text) ++reporting_;
  texts_.push_back(std::move(text));
  return static_cast<uint32_t>(texts_.size() - 1);
}

std::string DeviceCalls::take_message(const DeviceErrorWord& word) {
  std::string message = "a kernel reported error " + std::to_string(word.code);
  if (word.call < texts_.size() && texts_[word.call]) message = texts_[word.call](word.code, word.index, word.value);
  clear();
  return message;
}

void DeviceCalls::clear() {
  texts_.clear();
  reporting_ = 0;
}

std::string row_id_message(std::string_view op, std::string_view name, std::string_view what, int64_t i, int64_t id,
                           int64_t limit) {
  return std::string(op) + ": " + std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(id) +
         " is outside the " + std::string(what) + "'s " + std::to_string(limit) + " rows";
}

DeviceErrorText row_id_text(std::string_view op, std::string_view name, std::string_view what, int64_t limit) {
  return [op = std::string(op), name = std::string(name), what = std::string(what), limit](uint32_t, int32_t index,
                                                                                           int32_t value) {
    return row_id_message(op, name, what, index, value, limit);
  };
}

DeviceErrorText route_text(int64_t n_experts) {
  return [n_experts](uint32_t, int32_t index, int32_t value) {
    return "moe_matmul: route slot " + std::to_string(index) + " names expert " + std::to_string(value) +
           ", expected a whole number 0 .. " + std::to_string(n_experts - 1);
  };
}

std::string attention_token_message(uint32_t code, int64_t token, int32_t value, const tsr_attention_params& p) {
  const std::string who = "attention: token " + std::to_string(token);
  switch (code) {
    case kAttentionSeqOutside:
      return who + " has seq " + std::to_string(value) + " outside the " + std::to_string(p.n_seqs) + " block tables";
    case kAttentionNegativePosition: return who + " has negative position " + std::to_string(value);
    case kAttentionBlockIndexOutside:
      return who + " at position " + std::to_string(value) + " needs block index " +
             std::to_string(value / p.block_size) + " but block tables hold " + std::to_string(p.max_blocks_per_seq) +
             " blocks per sequence";
    default: return who + " reported error " + std::to_string(code);
  }
}

DeviceErrorText attention_text(const tsr_attention_params& p, int64_t n_cache_blocks) {
  return [p, n_cache_blocks](uint32_t code, int32_t token, int32_t value) {
    if (code != kAttentionBlockOutside) return attention_token_message(code, token, value, p);
    return "attention: token " + std::to_string(token) + " reads block " + std::to_string(value) +
           " from its block table but the cache has " + std::to_string(n_cache_blocks) + " blocks";
  };
}

}  // namespace tessera::kit
