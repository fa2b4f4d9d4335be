#include "core/plugin/kernel_registry.h"

namespace tessera {
namespace {

bool is_known(OpKind op, DType dtype) {
  const auto o = static_cast<int32_t>(op);
  const auto d = static_cast<int32_t>(dtype);
  return o >= 0 && o < kOpKindCount && d >= 0 && d < kDTypeCount;
}

std::string kernel_name(const tsr_kernel_desc& k) {
  if (k.name) return k.name;
  return std::string(op_name(static_cast<OpKind>(k.op))) + "_" +
         std::string(dtype_name(static_cast<DType>(k.dtype)));
}

}  // namespace

KernelRegistry::KernelRegistry(std::vector<std::shared_ptr<const PluginLibrary>> plugins)
    : plugins_(std::move(plugins)),
      best_(static_cast<size_t>(kOpKindCount) * kDTypeCount * plugins_.size(), kNone) {
  for (size_t p = 0; p < plugins_.size(); ++p) add_own_kernels(p);
  // Extensions in registry order, each over its backend's (possibly merged) choice:
  // strictly higher priority wins, so ties keep the backend's own, then the earlier one.
  for (size_t e = 0; e < plugins_.size(); ++e) {
    if (!plugins_[e]->is_extension()) continue;
    for (size_t b = 0; b < plugins_.size(); ++b) {
      if (plugins_[b]->name() == plugins_[e]->extends() && plugins_[b]->takes_kernel_plugins()) {
        merge_extension(e, b);
      }
    }
  }
}

void KernelRegistry::add_own_kernels(size_t p) {
  // The tables were validated at load: every op and dtype is in range.
  for (const tsr_kernel_desc& desc : plugins_[p]->kernels()) {
    const auto op = static_cast<OpKind>(desc.op);
    const auto dtype = static_cast<DType>(desc.dtype);
    const auto index = static_cast<int32_t>(kernels_.size());
    kernels_.push_back(RegisteredKernel{.op = op,
                                        .dtype = dtype,
                                        .priority = desc.priority,
                                        .name = kernel_name(desc),
                                        .desc = &desc,
                                        .plugin = plugins_[p].get()});
    int32_t& best = best_[slot(op, dtype, p)];
    // Strictly greater: on a tie the kernel listed first stays.
    if (best == kNone || desc.priority > kernels_[static_cast<size_t>(best)].priority) {
      best = index;
    }
  }
}

void KernelRegistry::merge_extension(size_t e, size_t b) {
  for (int op = 0; op < kOpKindCount; ++op) {
    for (int dtype = 0; dtype < kDTypeCount; ++dtype) {
      const int32_t offered = best_[slot(static_cast<OpKind>(op), static_cast<DType>(dtype), e)];
      int32_t& best = best_[slot(static_cast<OpKind>(op), static_cast<DType>(dtype), b)];
      if (offered == kNone) continue;
      if (best == kNone || kernels_[static_cast<size_t>(offered)].priority >
                               kernels_[static_cast<size_t>(best)].priority) {
        best = offered;
      }
    }
  }
}

void KernelRegistry::hide(OpKind op, DType dtype) {
  if (!is_known(op, dtype)) return;
  for (size_t p = 0; p < plugins_.size(); ++p) best_[slot(op, dtype, p)] = kNone;
}

size_t KernelRegistry::slot(OpKind op, DType dtype, size_t plugin_index) const {
  return (static_cast<size_t>(op) * kDTypeCount + static_cast<size_t>(dtype)) * plugins_.size() +
         plugin_index;
}

int KernelRegistry::plugin_index(const PluginLibrary& plugin) const {
  // A handful of plugins: a linear scan is cheaper than any map.
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (plugins_[p].get() == &plugin) return static_cast<int>(p);
  }
  return -1;
}

const RegisteredKernel* KernelRegistry::find(OpKind op, DType dtype,
                                             const PluginLibrary& plugin) const {
  const int p = plugin_index(plugin);
  if (p < 0 || !is_known(op, dtype)) return nullptr;
  const int32_t best = best_[slot(op, dtype, static_cast<size_t>(p))];
  return best == kNone ? nullptr : &kernels_[static_cast<size_t>(best)];
}

const RegisteredKernel* KernelRegistry::find_any(OpKind op, DType dtype) const {
  const RegisteredKernel* chosen = nullptr;
  if (!is_known(op, dtype)) return chosen;
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (plugins_[p]->is_extension()) continue;  // its kernels count under its backend
    const int32_t best = best_[slot(op, dtype, p)];
    if (best == kNone) continue;
    const RegisteredKernel& k = kernels_[static_cast<size_t>(best)];
    if (chosen == nullptr || k.priority > chosen->priority) chosen = &k;
  }
  return chosen;
}

std::vector<const PluginLibrary*> KernelRegistry::backends_with(OpKind op, DType dtype) const {
  std::vector<const PluginLibrary*> found;
  if (!is_known(op, dtype)) return found;
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (!plugins_[p]->is_extension() && best_[slot(op, dtype, p)] != kNone) {
      found.push_back(plugins_[p].get());
    }
  }
  return found;
}

}  // namespace tessera
