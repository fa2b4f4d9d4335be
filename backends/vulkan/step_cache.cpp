// Dispatch lists (hashing, comparison) and the least-recently-used slot cache.
#include "backends/vulkan/step_cache.h"

#include <cstring>
#include <type_traits>

namespace tessera::vulkan {
namespace {

static_assert(std::has_unique_object_representations_v<RecordedDispatch>,
              "RecordedDispatch must have no padding: lists are compared and hashed as bytes");

// A 64-bit mix of one word into the running hash (the multiplier of splitmix64).
uint64_t mix(uint64_t hash, uint64_t word) {
  hash ^= word + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
  return hash * 0xbf58476d1ce4e5b9ull;
}

}  // namespace

void DispatchList::add(VkPipeline pipeline, const void* push, uint32_t push_bytes, uint32_t groups_x,
                       uint32_t groups_y) {
  RecordedDispatch& d = items_.emplace_back();
  d.pipeline = pipeline;
  d.groups_x = groups_x;
  d.groups_y = groups_y;
  d.push_bytes = push_bytes;
  if (push_bytes > 0) std::memcpy(d.push.data(), push, push_bytes);
  // Hash as 64-bit words; the zeroed tail of `push` keeps equal dispatches equal.
  uint64_t words[sizeof(RecordedDispatch) / sizeof(uint64_t)];
  static_assert(sizeof(RecordedDispatch) % sizeof(uint64_t) == 0);
  std::memcpy(words, &d, sizeof words);
  for (uint64_t w : words) hash_ = mix(hash_, w);
}

void DispatchList::clear() {
  items_.clear();
  hash_ = 0;
}

bool operator==(const DispatchList& a, const DispatchList& b) {
  if (a.hash_ != b.hash_ || a.items_.size() != b.items_.size()) return false;
  return a.items_.empty() ||
         std::memcmp(a.items_.data(), b.items_.data(), a.items_.size() * sizeof(RecordedDispatch)) == 0;
}

StepCache::StepCache(uint32_t slots) : slots_(slots) {}

StepCache::Lookup StepCache::find_or_assign(const DispatchList& list) {
  ++clock_;
  Slot* oldest = &slots_.front();
  for (Slot& s : slots_) {
    if (s.valid && s.list == list) {
      s.last_use = clock_;
      return {static_cast<uint32_t>(&s - slots_.data()), true};
    }
    // Empty slots first, then the least recently used.
    if (oldest->valid && (!s.valid || s.last_use < oldest->last_use)) oldest = &s;
  }
  oldest->list = list;
  oldest->valid = true;
  oldest->last_use = clock_;
  return {static_cast<uint32_t>(oldest - slots_.data()), false};
}

void StepCache::forget(uint32_t slot) {
  slots_.at(slot).valid = false;
  slots_.at(slot).list.clear();
}

void StepCache::clear() {
  for (Slot& s : slots_) {
    s.valid = false;
    s.list.clear();
  }
}

uint32_t StepCache::valid_slots() const {
  uint32_t n = 0;
  for (const Slot& s : slots_) n += s.valid ? 1u : 0u;
  return n;
}

}  // namespace tessera::vulkan
