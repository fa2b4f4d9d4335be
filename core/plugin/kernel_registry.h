// Which kernel runs an (op, dtype) on a backend: the kernels of the loaded plugins in
// a dense table, so the per-node lookup is two array reads. Ops a plugin declares
// (OpKind::Custom) get rows of their own, one per op name a kernel names.
#pragma once

#include <cstdint>
#include <map>
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
  std::string custom_op;  // op Custom: the declared op it runs ("acme.fused_silu_mul"); else ""
  DType dtype;            // the key dtype (see the op list in plugin_abi.h)
  int32_t priority;       // higher wins
  std::string name;       // the plugin's name for it, or "<op>_<dtype>" if it gave none
  const tsr_kernel_desc* desc;  // inside `plugin`'s table; run it with Device::run
  const PluginLibrary* plugin;

  OpRef op_ref() const { return {op, custom_op}; }
};

// Which kernels of the kernel plugins extending a backend count for it.
enum class ExtensionKernels {
  All,             // every kernel: they add and override the backend's (the normal case)
  DeclaredOpsOnly, // only those of the ops each one declares itself, which the backend
                   // cannot have: the backend's own kernels, and each declared op's
                   // author's, as a reference (verify mode)
};

// Choice rules:
//  - find(op, dtype, plugin): the kernel that runs (op, dtype) on `plugin`'s devices:
//    the highest priority among `plugin`'s own kernels and those of every registered
//    kernel plugin extending it (tsr_plugin.extends). On a tie the backend's own kernel
//    stays (the one listed first in its kernel list), then the extension earlier in the
//    registry's list. Extensions count only for a backend with host-visible buffers
//    and synchronous kernels (buffer_host_ptr set, step_begin/step_end null); for a
//    kernel plugin itself, find gives its own kernels.
//  - find_any(op, dtype): over the backends (not the kernel plugins), the highest
//    priority of what find gives; on a tie, the backend earlier in the registry's list
//    (the host's load order, i.e. search order).
//  - backends_with(op, dtype): the backends for which find gives a kernel, in order.
// A declared op is looked up by name (OpRef{OpKind::Custom, "acme.x"}); OpRef{Custom}
// without a name, or a name no kernel names, finds nothing.
// The registry keeps the plugins loaded, so the desc pointers stay valid.
class KernelRegistry {
 public:
  // `plugins` in preference order (usually PluginHost::plugins()). Register only the
  // plugins whose devices you will open, and the kernel plugins extending them: a
  // kernel runs on its own plugin's device or, for a kernel plugin, on the extended
  // backend's (Device::run).
  explicit KernelRegistry(std::vector<std::shared_ptr<const PluginLibrary>> plugins,
                          ExtensionKernels extensions = ExtensionKernels::All);

  // nullptr when there is none; `plugin` not in the registry also gives nullptr.
  const RegisteredKernel* find(const OpRef& op, DType dtype, const PluginLibrary& plugin) const;
  const RegisteredKernel* find_any(const OpRef& op, DType dtype) const;
  std::vector<const PluginLibrary*> backends_with(const OpRef& op, DType dtype) const;

  // Forgets every plugin's kernel for (op, dtype): find and find_any give nullptr for
  // it from now on. A test switch, to stand in for a backend that lacks a kernel.
  void hide(const OpRef& op, DType dtype);

  const std::vector<std::shared_ptr<const PluginLibrary>>& plugins() const { return plugins_; }
  const std::vector<RegisteredKernel>& kernels() const { return kernels_; }  // all, in table order

 private:
  static constexpr int32_t kNone = -1;
  // The row of `op` in best_ (kOpKindCount + n for the n-th declared op named), or -1.
  int row_of(const OpRef& op) const;
  int row_of(const tsr_kernel_desc& desc);  // adds a row for a new declared op
  size_t slot(int row, DType dtype, size_t plugin_index) const;
  int plugin_index(const PluginLibrary& plugin) const;
  void add_own_kernels(size_t plugin_index);
  void merge_extension(size_t extension_index, size_t backend_index, ExtensionKernels which);

  std::vector<std::shared_ptr<const PluginLibrary>> plugins_;
  std::vector<RegisteredKernel> kernels_;
  std::map<std::string, int, std::less<>> custom_rows_;  // declared op -> its row
  int rows_ = kOpKindCount;
  // [row][dtype][plugin] -> index into kernels_ of the chosen kernel (for a backend,
  // its extensions merged in), or kNone.
  std::vector<int32_t> best_;
};

}  // namespace tessera
