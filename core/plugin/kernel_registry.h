// Which kernel runs an (op, dtype) on a backend: the kernels of the loaded plugins in
// a dense table, so the per-node, per-step lookup is two array reads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

#include "core/ops/op.h"
#include "core/plugin/plugin_library.h"
#include "core/tensor/dtype.h"

namespace tessera {

struct RegisteredKernel {
  OpKind op;
  DType dtype;         // the key dtype (see the op list in plugin_abi.h)
  int32_t priority;    // higher wins
  std::string name;    // the plugin's name for it, or "<op>_<dtype>" if it gave none
  const tsr_kernel_desc* desc;  // inside `plugin`'s table; run it with Device::run
  const PluginLibrary* plugin;
};

// Choice rules:
//  - find(op, dtype, plugin): among that plugin's kernels for (op, dtype), the highest
//    priority; on a tie, the one listed first in the plugin's kernel list.
//  - find_any(op, dtype): the highest priority over all plugins; on a tie, the plugin
//    earlier in the registry's list (the host's load order, i.e. search order).
//  - backends_with(op, dtype): the plugins having such a kernel, in the registry's order.
// The registry keeps the plugins loaded, so the desc pointers stay valid.
class KernelRegistry {
 public:
  // `plugins` in preference order (usually PluginHost::plugins()). Register only the
  // plugins whose devices you will open: a kernel runs on its own plugin's device.
  explicit KernelRegistry(std::vector<std::shared_ptr<const PluginLibrary>> plugins);

  // nullptr when there is none; `plugin` not in the registry also gives nullptr.
  const RegisteredKernel* find(OpKind op, DType dtype, const PluginLibrary& plugin) const;
  const RegisteredKernel* find_any(OpKind op, DType dtype) const;
  std::vector<const PluginLibrary*> backends_with(OpKind op, DType dtype) const;

  const std::vector<std::shared_ptr<const PluginLibrary>>& plugins() const { return plugins_; }
  const std::vector<RegisteredKernel>& kernels() const { return kernels_; }  // all, in table order

 private:
  static constexpr int32_t kNone = -1;
  size_t slot(OpKind op, DType dtype, size_t plugin_index) const;
  int plugin_index(const PluginLibrary& plugin) const;

  std::vector<std::shared_ptr<const PluginLibrary>> plugins_;
  std::vector<RegisteredKernel> kernels_;
  // [op][dtype][plugin] -> index into kernels_ of the chosen kernel, or kNone.
  std::vector<int32_t> best_;
};

}  // namespace tessera
