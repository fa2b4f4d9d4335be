#include "core/plugin/kernel_registry.h"

namespace tessera {
namespace {

bool is_known(DType dtype) {
  const auto d = static_cast<int32_t>(dtype);
  return d >= 0 && d < kDTypeCount;
}

std::string kernel_name(const tsr_kernel_desc& k) {
  if (k.name) return k.name;
  const std::string op = k.op == TSR_OP_CUSTOM ? std::string(k.op_name) : std::string(op_name(static_cast<OpKind>(k.op)));
  return op + "_" + std::string(dtype_name(static_cast<DType>(k.dtype)));
}

}  // namespace

KernelRegistry::KernelRegistry(std::vector<std::shared_ptr<const PluginLibrary>> plugins, ExtensionKernels extensions)
    : plugins_(std::move(plugins)) {
  // The rows of the declared ops first, so that best_ is sized once.
  for (const auto& p : plugins_) {
    for (const tsr_kernel_desc& desc : p->kernels()) row_of(desc);
  }
  best_.assign(static_cast<size_t>(rows_) * kDTypeCount * plugins_.size(), kNone);
  for (size_t p = 0; p < plugins_.size(); ++p) add_own_kernels(p);
  // Extensions in registry order, each over its backend's (possibly merged) choice:
  // strictly higher priority wins, so ties keep the backend's own, then the earlier one.
  for (size_t e = 0; e < plugins_.size(); ++e) {
    if (!plugins_[e]->is_extension()) continue;
    for (size_t b = 0; b < plugins_.size(); ++b) {
      if (plugins_[b]->name() == plugins_[e]->extends() && plugins_[b]->takes_kernel_plugins()) {
        merge_extension(e, b, extensions);
      }
    }
  }
}

int KernelRegistry::row_of(const tsr_kernel_desc& desc) {
  if (desc.op != TSR_OP_CUSTOM) return static_cast<int>(desc.op);
  const auto [it, fresh] = custom_rows_.try_emplace(desc.op_name, rows_);
  if (fresh) ++rows_;
  return it->second;
}

int KernelRegistry::row_of(const OpRef& op) const {
  if (op.op != OpKind::Custom) {
    const auto o = static_cast<int>(op.op);
    return o >= 0 && o < kOpKindCount ? o : -1;
  }
  const auto it = custom_rows_.find(op.custom);
  return it == custom_rows_.end() ? -1 : it->second;
}

void KernelRegistry::add_own_kernels(size_t p) {
  // The tables were validated at load: every op and dtype is in range.
  for (const tsr_kernel_desc& desc : plugins_[p]->kernels()) {
    const int row = row_of(OpRef(static_cast<OpKind>(desc.op), desc.op == TSR_OP_CUSTOM ? desc.op_name : ""));
    const auto dtype = static_cast<DType>(desc.dtype);
    const auto index = static_cast<int32_t>(kernels_.size());
    kernels_.push_back(RegisteredKernel{.op = static_cast<OpKind>(desc.op),
                                        .custom_op = desc.op == TSR_OP_CUSTOM ? desc.op_name : "",
                                        .dtype = dtype,
                                        .priority = desc.priority,
                                        .name = kernel_name(desc),
                                        .desc = &desc,
                                        .plugin = plugins_[p].get()});
    int32_t& best = best_[slot(row, dtype, p)];
    // Strictly greater: on a tie the kernel listed first stays.
    if (best == kNone || desc.priority > kernels_[static_cast<size_t>(best)].priority) {
      best = index;
    }
  }
}

void KernelRegistry::merge_extension(size_t e, size_t b, ExtensionKernels which) {
  std::vector<int> rows;
  if (which == ExtensionKernels::All) {
    for (int row = 0; row < rows_; ++row) rows.push_back(row);
  } else {
    for (const tsr_op_decl& d : plugins_[e]->op_decls()) {
      if (const int row = row_of(OpRef(OpKind::Custom, d.name)); row >= 0) rows.push_back(row);
    }
  }
  for (const int row : rows) {
    for (int dtype = 0; dtype < kDTypeCount; ++dtype) {
      const int32_t offered = best_[slot(row, static_cast<DType>(dtype), e)];
      int32_t& best = best_[slot(row, static_cast<DType>(dtype), b)];
      if (offered == kNone) continue;
      if (best == kNone || kernels_[static_cast<size_t>(offered)].priority >
                               kernels_[static_cast<size_t>(best)].priority) {
        best = offered;
      }
    }
  }
}

void KernelRegistry::hide(const OpRef& op, DType dtype) {
  const int row = row_of(op);
  if (row < 0 || !is_known(dtype)) return;
  for (size_t p = 0; p < plugins_.size(); ++p) best_[slot(row, dtype, p)] = kNone;
}

size_t KernelRegistry::slot(int row, DType dtype, size_t plugin_index) const {
  return (static_cast<size_t>(row) * kDTypeCount + static_cast<size_t>(dtype)) * plugins_.size() + plugin_index;
}

int KernelRegistry::plugin_index(const PluginLibrary& plugin) const {
  // A handful of plugins: a linear scan is cheaper than any map.
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (plugins_[p].get() == &plugin) return static_cast<int>(p);
  }
  return -1;
}

const RegisteredKernel* KernelRegistry::find(const OpRef& op, DType dtype, const PluginLibrary& plugin) const {
  const int p = plugin_index(plugin);
  const int row = row_of(op);
  if (p < 0 || row < 0 || !is_known(dtype)) return nullptr;
  const int32_t best = best_[slot(row, dtype, static_cast<size_t>(p))];
  return best == kNone ? nullptr : &kernels_[static_cast<size_t>(best)];
}

const RegisteredKernel* KernelRegistry::find_any(const OpRef& op, DType dtype) const {
  const RegisteredKernel* chosen = nullptr;
  const int row = row_of(op);
  if (row < 0 || !is_known(dtype)) return chosen;
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (plugins_[p]->is_extension()) continue;  // its kernels count under its backend
    const int32_t best = best_[slot(row, dtype, p)];
    if (best == kNone) continue;
    const RegisteredKernel& k = kernels_[static_cast<size_t>(best)];
    if (chosen == nullptr || k.priority > chosen->priority) chosen = &k;
  }
  return chosen;
}

std::vector<const PluginLibrary*> KernelRegistry::backends_with(const OpRef& op, DType dtype) const {
  std::vector<const PluginLibrary*> found;
  const int row = row_of(op);
  if (row < 0 || !is_known(dtype)) return found;
  for (size_t p = 0; p < plugins_.size(); ++p) {
    if (!plugins_[p]->is_extension() && best_[slot(row, dtype, p)] != kNone) {
      found.push_back(plugins_[p].get());
    }
  }
  return found;
}

}  // namespace tessera
