// The dtype table; see dtype_traits.h.
#include <tessera/kit/dtype_traits.h>

#include <array>

#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {
namespace {

constexpr DTypeTraits plain(std::string_view name, uint32_t id, int64_t bytes) {
  return {name, name, id, 1, bytes, bytes, false};
}
template <class Block>
constexpr DTypeTraits blocks(std::string_view name, std::string_view ggml, uint32_t id, int64_t elems) {
  return {name, ggml, id, elems, static_cast<int64_t>(sizeof(Block)), 2, true};
}

// Indexed by tsr_dtype.
constexpr std::array<DTypeTraits, TSR_DTYPE_COUNT> kTraits = {
    plain("f32", 0, 4),
    DTypeTraits{"f16", "f16", 1, 1, 2, 2, false},
    DTypeTraits{"bf16", "bf16", 30, 1, 2, 2, false},
    blocks<BlockQ8_0>("q8_0", "q8_0", 8, kQK),
    plain("i32", 26, 4),
    blocks<BlockQ4_0>("q4_0", "q4_0", 2, kQK),
    blocks<BlockQ4_1>("q4_1", "q4_1", 3, kQK),
    blocks<BlockQ5_0>("q5_0", "q5_0", 6, kQK),
    blocks<BlockQ5_1>("q5_1", "q5_1", 7, kQK),
    blocks<BlockQ2_K>("q2_k", "q2_K", 10, kQKK),
    blocks<BlockQ3_K>("q3_k", "q3_K", 11, kQKK),
    blocks<BlockQ4_K>("q4_k", "q4_K", 12, kQKK),
    blocks<BlockQ5_K>("q5_k", "q5_K", 13, kQKK),
    blocks<BlockQ6_K>("q6_k", "q6_K", 14, kQKK),
    blocks<BlockIQ4_NL>("iq4_nl", "iq4_nl", 20, kQK),
    blocks<BlockIQ4_XS>("iq4_xs", "iq4_xs", 23, kQKK),
};
constexpr DTypeTraits kUnknown{"unknown", "unknown", 0xffffffffu, 1, 1, 1, false};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

bool is_known_dtype(tsr_dtype dtype) { return dtype >= 0 && dtype < TSR_DTYPE_COUNT; }

const DTypeTraits& dtype_traits(tsr_dtype dtype) {
  return is_known_dtype(dtype) ? kTraits[static_cast<size_t>(dtype)] : kUnknown;
}

bool dtype_from_name(std::string_view name, tsr_dtype* out) {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (equal_ignoring_case(kTraits[i].name, name)) {
      *out = static_cast<tsr_dtype>(i);
      return true;
    }
  }
  return false;
}

bool dtype_from_ggml_id(uint32_t id, tsr_dtype* out) {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (kTraits[i].ggml_id == id) {
      *out = static_cast<tsr_dtype>(i);
      return true;
    }
  }
  return false;
}

}  // namespace tessera::kit
