// Opening a backend by name ("cpu", "cpu:0", "vulkan:1") from the loaded plugins:
// the device the session runs on and the kernels its plugin provides.
#pragma once

#include <memory>
#include <string>

#include "core/exec/graph_executor.h"
#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/plugin/plugin_host.h"

namespace tessera {

struct Backend {
  std::shared_ptr<Device> device;
  std::unique_ptr<KernelRegistry> registry;
  // Where the nodes go that this backend has no kernel for (the CLI opens the CPU
  // here unless told --no-fallback); null: such a node is refused.
  std::shared_ptr<const Backend> fallback;
  // Verify mode: every op also runs here and is compared (see GraphExecutor); null: off.
  std::shared_ptr<const Backend> reference;
};

// An executor running `graph` on `backend` (and its fallback and reference, when it
// has them).
std::unique_ptr<GraphExecutor> place_graph(const Graph& graph, const WeightFile& weights, const Backend& backend,
                                           KvCacheShape kv);

// Throws tessera::Error saying which backends were found, which files were
// refused and why, and which directories were searched, when `spec` is not there.
// `with_kernel_plugins` false: the backend's own kernels only, and each kernel plugin's
// for the ops it declares itself (a reference to check kernel plugins against).
Backend open_backend(const PluginHost& host, const std::string& spec, int32_t n_threads,
                     bool with_kernel_plugins = true);

}  // namespace tessera
