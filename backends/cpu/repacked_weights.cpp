// See repacked_weights.h.
#include "backends/cpu/repacked_weights.h"

#include <cstdlib>
#include <new>
#include <string_view>

namespace tessera::cpu {

bool decode_repack_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("TESSERA_CPU_DECODE_REPACK");
    return env != nullptr && std::string_view(env) == "on";
  }();
  return enabled;
}

const std::byte* RepackedWeights::find_or_make(const Key& key, size_t bytes,
                                               const std::function<void(std::byte*)>& make) {
  std::lock_guard lock(mutex_);
  auto it = copies_.find(key);
  if (it != copies_.end()) return it->second.first.get();
  std::unique_ptr<std::byte[]> copy(new (std::nothrow) std::byte[bytes]);
  if (!copy) return nullptr;
  make(copy.get());
  return copies_.emplace(key, std::make_pair(std::move(copy), bytes)).first->second.first.get();
}

void RepackedWeights::clear() {
  std::lock_guard lock(mutex_);
  copies_.clear();
}

size_t RepackedWeights::count() {
  std::lock_guard lock(mutex_);
  return copies_.size();
}

size_t RepackedWeights::bytes() {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const auto& [key, copy] : copies_) total += copy.second;
  return total;
}

}  // namespace tessera::cpu
