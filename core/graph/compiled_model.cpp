#include "core/graph/compiled_model.h"

namespace tessera {

const HParam* CompiledModel::find_hparam(std::string_view wanted) const {
  for (const HParam& h : hparams) {
    if (h.name == wanted) return &h;
  }
  return nullptr;
}

}  // namespace tessera
