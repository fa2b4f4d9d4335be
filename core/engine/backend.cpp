#include "core/engine/backend.h"

#include <cstdlib>

#include "core/util/error.h"

namespace tessera {
namespace {

std::string explain_search(const PluginHost& host) {
  std::string s = "\nloaded backends:";
  if (host.plugins().empty()) s += " none";
  for (const auto& p : host.plugins()) s += " " + p->name();
  for (const auto& f : host.failures()) s += "\nrefused: " + f.message;
  s += "\nsearched:";
  for (const auto& d : host.searched_dirs()) s += "\n  " + d.path + (d.exists ? "" : " (missing)");
  return s + "\n(use --plugin-dir DIR or TESSERA_PLUGIN_PATH to add a directory)";
}

}  // namespace

std::unique_ptr<GraphExecutor> place_graph(const Graph& graph, const WeightFile& weights, const Backend& backend,
                                           KvCacheShape kv) {
  const auto target = [](const std::shared_ptr<const Backend>& b) {
    return b ? BackendTarget{b->device, b->registry.get()} : BackendTarget{};
  };
  const BackendTarget fallback = target(backend.fallback);
  const BackendTarget reference = target(backend.reference);
  return std::make_unique<GraphExecutor>(graph, weights, backend.device, *backend.registry, kv, &fallback, &reference);
}

Backend open_backend(const PluginHost& host, const std::string& spec, int32_t n_threads, bool with_kernel_plugins) {
  std::string name = spec;
  int32_t index = 0;
  if (const auto colon = spec.find(':'); colon != std::string::npos) {
    name = spec.substr(0, colon);
    const std::string idx = spec.substr(colon + 1);
    char* end = nullptr;
    const long v = std::strtol(idx.c_str(), &end, 10);
    if (idx.empty() || *end != '\0' || v < 0) {
      throw Error("backend '" + spec + "': the device index after ':' must be a number >= 0");
    }
    index = static_cast<int32_t>(v);
  }
  auto plugin = host.find(name);
  if (!plugin) throw Error("no backend named '" + name + "'" + explain_search(host));
  if (plugin->is_extension()) {
    throw Error("'" + name + "' (" + plugin->path().string() + ") is a kernel plugin extending '" +
                plugin->extends() + "', not a backend: use -b " + plugin->extends());
  }
  const int32_t count = plugin->device_count();
  if (count == 0) {
    const std::string why = plugin->unavailable_reason();
    throw Error("backend '" + name + "' (" + plugin->path().string() + ") has no usable device" +
                (why.empty() ? "" : ": " + why));
  }
  if (index >= count) {
    throw Error("backend '" + name + "' has " + std::to_string(count) + " device(s); there is no device " +
                std::to_string(index));
  }
  Backend b;
  b.device = Device::open(plugin, index, n_threads);
  // The backend's kernels, and those of every loaded kernel plugin extending it: per
  // (op, dtype) the highest priority runs (KernelRegistry::find). Without kernel
  // plugins, each still runs the ops it declares itself, which the backend cannot have.
  std::vector<std::shared_ptr<const PluginLibrary>> plugins{plugin};
  for (const auto& candidate : host.plugins()) {
    if (candidate->extends() == plugin->name()) plugins.push_back(candidate);
  }
  b.registry = std::make_unique<KernelRegistry>(
      std::move(plugins), with_kernel_plugins ? ExtensionKernels::All : ExtensionKernels::DeclaredOpsOnly);
  return b;
}

}  // namespace tessera
