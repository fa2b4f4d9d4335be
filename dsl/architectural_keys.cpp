#include "dsl/architectural_keys.h"

#include <optional>
#include <string_view>

namespace tessera::dsl {
namespace {

// The value at which a definition that ignores a key still computes what the file means.
enum class Harmless {
  Zero,              // off: a window, a soft-cap, a clamp, experts
  One,               // a scale of 1, attention that is causal
  ZeroOrOne,         // a scaling factor: 0 is llama.cpp's "unset"
  HeadCount,         // attention.head_count: no grouped-query attention
  EmbeddingHeadDim,  // embedding_length / head_count: the head size llama.cpp derives
  KeyHeadDim,        // attention.key_length, else embedding_length / head_count
  ScalingOff,        // any value, while rope.scaling.factor is absent, 0 or 1
  Never,             // every value matters (a base, a pattern, an explicit scale)
};

struct ArchitecturalKey {
  std::string_view suffix;  // after "<arch>."
  Harmless harmless;
};

// The keys llama.cpp's converters write that change the computation of the
// architectures Tessera's definitions describe. Keys that only size things (block
// count, lengths) are not here: the weights' shapes check those.
constexpr ArchitecturalKey kArchitecturalKeys[] = {
    {"attention.sliding_window", Harmless::Zero},
    {"attention.sliding_window_pattern", Harmless::Never},
    {"attention.head_count_kv", Harmless::HeadCount},
    {"attention.key_length", Harmless::EmbeddingHeadDim},
    {"attention.value_length", Harmless::KeyHeadDim},
    {"attention.scale", Harmless::Never},
    {"attention.clamp_kqv", Harmless::Zero},
    {"attention.max_alibi_bias", Harmless::Never},
    {"attention.causal", Harmless::One},
    {"attn_logit_softcapping", Harmless::Zero},
    {"final_logit_softcapping", Harmless::Zero},
    {"rope.dimension_count", Harmless::KeyHeadDim},
    {"rope.freq_base", Harmless::Never},
    {"rope.freq_base_swa", Harmless::Never},
    {"rope.scaling.factor", Harmless::ZeroOrOne},
    {"rope.scaling.original_context_length", Harmless::ScalingOff},
    {"rope.scaling.attn_factor", Harmless::ScalingOff},
    {"rope.scaling.low_freq_factor", Harmless::ScalingOff},
    {"rope.scaling.high_freq_factor", Harmless::ScalingOff},
    {"rope.scaling.yarn_ext_factor", Harmless::ScalingOff},
    {"rope.scaling.yarn_attn_factor", Harmless::ScalingOff},
    {"rope.scaling.yarn_beta_fast", Harmless::ScalingOff},
    {"rope.scaling.yarn_beta_slow", Harmless::ScalingOff},
    {"rope.scaling.yarn_log_multiplier", Harmless::ScalingOff},
    {"expert_count", Harmless::Zero},
    {"expert_used_count", Harmless::Zero},
    {"embedding_scale", Harmless::One},
    {"residual_scale", Harmless::One},
    {"logit_scale", Harmless::One},
};

// The value as meta() reads it (a boolean is 0 or 1); nullopt for strings and arrays.
std::optional<double> number_of(const MetaValue& m) {
  if (const bool* b = std::get_if<bool>(&m.value)) return *b ? 1.0 : 0.0;
  if (m.is_number()) return m.as_float();
  return std::nullopt;
}

class FileKeys {
 public:
  FileKeys(const WeightFile& file, const std::string& arch) : file_(file), prefix_(arch + ".") {}

  std::optional<double> number(std::string_view suffix) const {
    const MetaValue* m = file_.find_meta(prefix_ + std::string(suffix));
    return m ? number_of(*m) : std::nullopt;
  }

  // embedding_length / head_count, when the file has both.
  std::optional<double> embedding_head_dim() const {
    const auto d = number("embedding_length");
    const auto h = number("attention.head_count");
    if (!d || !h || *h <= 0) return std::nullopt;
    return *d / *h;
  }

  bool harmless(Harmless rule, double v) const {
    switch (rule) {
      case Harmless::Zero: return v == 0;
      case Harmless::One: return v == 1;
      case Harmless::ZeroOrOne: return v == 0 || v == 1;
      case Harmless::HeadCount: return number("attention.head_count") == v;
      case Harmless::EmbeddingHeadDim: return embedding_head_dim() == v;
      case Harmless::KeyHeadDim: {
        const auto key = number("attention.key_length");
        return (key ? key : embedding_head_dim()) == v;
      }
      case Harmless::ScalingOff: {
        const auto factor = number("rope.scaling.factor");
        return !factor || *factor == 0 || *factor == 1;
      }
      case Harmless::Never: return false;
    }
    return false;
  }

  const std::string& prefix() const { return prefix_; }

 private:
  const WeightFile& file_;
  std::string prefix_;
};

}  // namespace

std::vector<FileCoverage::Key> unread_architectural_keys(const WeightFile& file, const std::string& arch,
                                                         const std::set<std::string>& named_keys) {
  const FileKeys keys(file, arch);
  std::vector<FileCoverage::Key> out;
  for (const auto& [name, value] : file.metadata()) {  // a map: sorted by key
    if (name.rfind(keys.prefix(), 0) != 0 || named_keys.count(name)) continue;
    const std::string_view suffix = std::string_view(name).substr(keys.prefix().size());
    for (const ArchitecturalKey& k : kArchitecturalKeys) {
      if (k.suffix != suffix) continue;
      const std::optional<double> v = number_of(value);
      if (v && !keys.harmless(k.harmless, *v)) out.push_back({name, value.to_display()});
    }
  }
  return out;
}

}  // namespace tessera::dsl
