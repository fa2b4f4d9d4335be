#include "dsl/composition.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera::dsl {
namespace {

// `base` with each item of `own` in the place of the base's item of the same name, and
// the others after the base's. A second item of one name in `own` is appended too, so
// that the semantic check reports it as a duplicate.
template <typename T>
std::vector<T> override_by_name(std::vector<T>&& base, std::vector<T>&& own) {
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < base.size(); ++i) position.emplace(base[i].name, i);
  std::set<std::string> replaced;
  std::vector<T> merged = std::move(base);
  for (T& item : own) {
    const auto it = position.find(item.name);
    if (it != position.end() && replaced.insert(item.name).second) {
      merged[it->second] = std::move(item);
    } else {
      merged.push_back(std::move(item));
    }
  }
  return merged;
}

bool has_section(const ModelDef& m, std::string_view keyword) {
  return std::any_of(m.sections.begin(), m.sections.end(),
                     [&](const SectionMark& s) { return s.keyword == keyword; });
}

}  // namespace

void merge_base(ModelDef& variant, ModelDef&& base) {
  // The variant's layer groups follow the base's.
  const int group_offset = static_cast<int>(base.layer_groups.size());
  for (WeightDecl& w : variant.weights) {
    if (w.group >= 0) w.group += group_offset;
  }
  std::vector<LayerGroup> groups = std::move(base.layer_groups);
  for (LayerGroup& g : variant.layer_groups) groups.push_back(std::move(g));
  variant.layer_groups = std::move(groups);

  variant.hparams = override_by_name(std::move(base.hparams), std::move(variant.hparams));
  std::vector<Requirement> requirements = std::move(base.requirements);
  for (Requirement& r : variant.requirements) requirements.push_back(std::move(r));
  variant.requirements = std::move(requirements);
  variant.weights = override_by_name(std::move(base.weights), std::move(variant.weights));
  variant.blocks = override_by_name(std::move(base.blocks), std::move(variant.blocks));

  if (!has_section(variant, "forward")) {
    variant.forward = std::move(base.forward);
    variant.forward_loc = base.forward_loc;
  }
  for (SectionMark& s : base.sections) variant.sections.push_back(std::move(s));
}

}  // namespace tessera::dsl
