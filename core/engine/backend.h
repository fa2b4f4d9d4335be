// Opening a backend by name ("cpu", "cpu:0", "vulkan:1") from the loaded plugins:
// the device the session runs on and the kernels its plugin provides.
#pragma once

#include <memory>
#include <string>

#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/plugin/plugin_host.h"

namespace tessera {

struct Backend {
  std::shared_ptr<Device> device;
  std::unique_ptr<KernelRegistry> registry;
};

// Throws tessera::Error saying which backends were found, which files were
// refused and why, and which directories were searched, when `spec` is not there.
Backend open_backend(const PluginHost& host, const std::string& spec, int32_t n_threads);

}  // namespace tessera
