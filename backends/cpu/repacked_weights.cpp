// See repacked_weights.h.
#include "backends/cpu/repacked_weights.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <tessera/kit/host_memory.h>

namespace tessera::cpu {

DecodeRepack decode_repack() {
  static const DecodeRepack mode = [] {
    const char* env = std::getenv("TESSERA_CPU_DECODE_REPACK");
    const std::string_view want = env == nullptr ? "" : env;
    if (want == "off") return DecodeRepack::kOff;
    if (want == "on") return DecodeRepack::kOn;
    return DecodeRepack::kAuto;
  }();
  return mode;
}

const std::byte* RepackedWeights::find_or_make(const Key& key, size_t bytes, uint64_t reserve,
                                               const std::function<void(std::byte*)>& make) {
  std::lock_guard lock(mutex_);
  auto it = copies_.find(key);
  if (it != copies_.end()) return it->second.first;
  const bool room = reserve == 0 || kit::memory_available_bytes() >= reserve + bytes;
  std::byte* copy = room ? allocate(bytes) : nullptr;
  if (copy != nullptr) make(copy);
  return copies_.emplace(key, std::make_pair(copy, copy != nullptr ? bytes : 0)).first->second.first;
}

std::byte* RepackedWeights::allocate(size_t bytes) {
  constexpr size_t kAlign = 64, kChunkBytes = size_t{64} << 20;
  const size_t at = (chunk_used_ + kAlign - 1) / kAlign * kAlign;
  if (chunks_.empty() || at + bytes > chunks_.back().size()) {
    kit::HugePageMemory chunk(std::max(bytes, kChunkBytes));
    if (chunk.data() == nullptr) return nullptr;
    // A copy larger than the last chunk's room gets a chunk of its own; the room left in
    // the last one stays for smaller copies.
    if (!chunks_.empty() && bytes >= kChunkBytes) {
      chunks_.insert(chunks_.end() - 1, std::move(chunk));
      return reinterpret_cast<std::byte*>(chunks_[chunks_.size() - 2].data());
    }
    chunks_.push_back(std::move(chunk));
    chunk_used_ = bytes;
    return reinterpret_cast<std::byte*>(chunks_.back().data());
  }
  chunk_used_ = at + bytes;
  return reinterpret_cast<std::byte*>(chunks_.back().data() + at);
}

void RepackedWeights::clear() {
  std::lock_guard lock(mutex_);
  copies_.clear();
  chunks_.clear();
  chunk_used_ = 0;
}

size_t RepackedWeights::count() {
  std::lock_guard lock(mutex_);
  size_t held = 0;
  for (const auto& [key, copy] : copies_) held += copy.first != nullptr ? 1 : 0;
  return held;
}

size_t RepackedWeights::bytes() {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const auto& [key, copy] : copies_) total += copy.second;
  return total;
}

}  // namespace tessera::cpu
