// See repacked_weights.h.
#include "backends/cpu/repacked_weights.h"

#include <cstdlib>
#include <new>
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
  if (it != copies_.end()) return it->second.first.get();
  std::unique_ptr<std::byte[]> copy;
  const bool room = reserve == 0 || kit::memory_available_bytes() >= reserve + bytes;
  if (room) copy.reset(new (std::nothrow) std::byte[bytes]);
  if (copy) make(copy.get());
  const size_t held = copy ? bytes : 0;
  return copies_.emplace(key, std::make_pair(std::move(copy), held)).first->second.first.get();
}

void RepackedWeights::clear() {
  std::lock_guard lock(mutex_);
  copies_.clear();
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
