// The quantisation presets; see quant_preset.h.
#include "core/weights/quant_preset.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace tessera {
namespace {

struct PresetRow {
  std::string_view name;
  DType base;
  QuantMix mix;
  uint32_t file_type;  // llama.cpp's LLAMA_FTYPE_* value
};

constexpr std::array<PresetRow, 21> kPresets = {{
    {"f32", DType::F32, QuantMix::Uniform, 0},      {"f16", DType::F16, QuantMix::Uniform, 1},
    {"bf16", DType::BF16, QuantMix::Uniform, 32},   {"q8_0", DType::Q8_0, QuantMix::Uniform, 7},
    {"q4_0", DType::Q4_0, QuantMix::Uniform, 2},    {"q4_1", DType::Q4_1, QuantMix::Uniform, 3},
    {"q5_0", DType::Q5_0, QuantMix::Uniform, 8},    {"q5_1", DType::Q5_1, QuantMix::Uniform, 9},
    {"q2_k", DType::Q2_K, QuantMix::Uniform, 10},   {"q3_k_s", DType::Q3_K, QuantMix::Small, 11},
    {"q3_k_m", DType::Q3_K, QuantMix::Medium, 12},  {"q3_k_l", DType::Q3_K, QuantMix::Large, 13},
    {"q4_k_s", DType::Q4_K, QuantMix::Small, 14},   {"q4_k_m", DType::Q4_K, QuantMix::Medium, 15},
    {"q5_k_s", DType::Q5_K, QuantMix::Small, 16},   {"q5_k_m", DType::Q5_K, QuantMix::Medium, 17},
    {"q6_k", DType::Q6_K, QuantMix::Uniform, 18},   {"iq4_nl", DType::IQ4_NL, QuantMix::Uniform, 25},
    {"iq4_xs", DType::IQ4_XS, QuantMix::Uniform, 30}, {"q4_k", DType::Q4_K, QuantMix::Medium, 15},
    {"q5_k", DType::Q5_K, QuantMix::Medium, 17},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The N of "blk.N.", or -1.
int64_t layer_of(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  int64_t n = 0;
  size_t i = 4;
  if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i) n = n * 10 + (name[i] - '0');
  return i < name.size() && name[i] == '.' ? n : -1;
}

// The layers that get more bits in the _M mixes: the first and last eighth, and every
// third layer between.
bool more_bits(int64_t layer, int64_t n_layers) {
  return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
}

// A preset that stores every matrix in one plain dtype (f32, f16, bf16, q8_0).
bool single_dtype(const QuantPreset& p) {
  return p.mix == QuantMix::Uniform && (!dtype_is_quantized(p.base) || p.base == DType::Q8_0);
}

DType mixed_dtype(const QuantPreset& p, const QuantTarget& t) {
  const std::string& name = t.gguf_name;
  const int64_t layer = layer_of(name), n = std::max<int64_t>(t.n_layers, 1);
  if (name == "output.weight") return DType::Q6_K;
  if (p.mix == QuantMix::Uniform || layer < 0) return p.base;
  const bool attn_v = ends_with(name, ".attn_v.weight"), ffn_down = ends_with(name, ".ffn_down.weight");
  const bool attn_out = ends_with(name, ".attn_output.weight");
  if (p.base == DType::Q3_K) {
    if (attn_v) return p.mix == QuantMix::Small ? DType::Q3_K : (layer < 2 ? DType::Q5_K : DType::Q4_K);
    if (ffn_down && p.mix != QuantMix::Small) return layer < n / 16 ? DType::Q5_K : DType::Q4_K;
    if (attn_out && p.mix != QuantMix::Small) return DType::Q4_K;
    return DType::Q3_K;
  }
  if (p.mix == QuantMix::Small) {
    if (p.base == DType::Q4_K && (attn_v ? layer < 4 : ffn_down && layer < n / 8)) return DType::Q5_K;
    return p.base;
  }
  if ((attn_v || ffn_down) && more_bits(layer, n)) return DType::Q6_K;
  return p.base;
}

DType with_fallback(DType dtype, int64_t row) {
  if (row % dtype_block_elems(dtype) == 0) return dtype;
  DType next = DType::F16;
  switch (dtype) {
    case DType::Q4_K: next = DType::Q5_0; break;
    case DType::Q5_K: next = DType::Q5_1; break;
    case DType::Q6_K: next = DType::Q8_0; break;
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::IQ4_XS: next = DType::IQ4_NL; break;
    default: break;
  }
  return row % dtype_block_elems(next) == 0 ? next : DType::F16;
}

}  // namespace

bool quant_preset_from_name(std::string_view name, QuantPreset* out) {
  const std::string key = lower(name);
  for (const PresetRow& r : kPresets) {
    if (r.name == key) {
      *out = {key, r.base, r.mix, r.file_type};
      return true;
    }
  }
  return false;
}

std::string quant_preset_names() {
  std::string list;
  for (const PresetRow& r : kPresets) list += (list.empty() ? "" : ", ") + std::string(r.name);
  return list;
}

DType preset_dtype(const QuantPreset& preset, const QuantTarget& target) {
  if (single_dtype(preset)) return preset.base;
  return with_fallback(mixed_dtype(preset, target), target.row_elements);
}

int64_t layer_count_of(const std::vector<std::string>& gguf_names) {
  int64_t n = 0;
  for (const std::string& name : gguf_names) n = std::max(n, layer_of(name) + 1);
  return n;
}

}  // namespace tessera
