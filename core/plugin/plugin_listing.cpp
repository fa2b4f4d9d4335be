#include "core/plugin/plugin_listing.h"

#include <array>
#include <exception>
#include <sstream>

#include "core/ops/op.h"
#include "core/plugin/abi_text.h"
#include "core/tensor/dtype.h"

namespace tessera {
namespace {

void describe_search_path(const PluginHost& host, std::ostream& out) {
  out << "plugin search path:\n";
  if (host.searched_dirs().empty()) out << "  (none)\n";
  for (const PluginSearchDir& dir : host.searched_dirs()) {
    out << "  " << dir.path << (dir.exists ? "" : " (not found)") << "\n";
  }
}

void describe_devices(const PluginLibrary& plugin, std::ostream& out) {
  const int32_t count = plugin.device_count();
  if (count == 0) {
    const std::string reason = plugin.unavailable_reason();
    out << "  devices: none" << (reason.empty() ? "" : " (" + reason + ")") << "\n";
    return;
  }
  for (int32_t i = 0; i < count; ++i) {
    out << "  device " << plugin.name() << ":" << i << ": ";
    try {
      const tsr_device_info info = plugin.device_info(i);
      out << info.name;
      if (info.description[0] != '\0') out << " (" << info.description << ")";
      out << ", memory "
          << (info.memory_bytes ? format_bytes(info.memory_bytes) : std::string("unknown"))
          << "\n";
    } catch (const std::exception& e) {
      out << "unavailable: " << e.what() << "\n";
    }
  }
}

// One line per op that has kernels, in op order: "add: f32 i32".
void describe_kernels(const PluginLibrary& plugin, std::ostream& out) {
  if (plugin.kernels().empty()) {
    out << "  kernels: none\n";
    return;
  }
  std::array<std::array<bool, kDTypeCount>, kOpKindCount> has{};
  for (const tsr_kernel_desc& k : plugin.kernels()) has[k.op][k.dtype] = true;
  out << "  kernels:\n";
  for (int op = 0; op < kOpKindCount; ++op) {
    std::string dtypes;
    for (int dtype = 0; dtype < kDTypeCount; ++dtype) {
      if (has[op][dtype]) dtypes += " " + std::string(dtype_name(static_cast<DType>(dtype)));
    }
    if (!dtypes.empty()) out << "    " << op_name(static_cast<OpKind>(op)) << ":" << dtypes << "\n";
  }
}

// A kernel plugin has no devices: say whose it runs on, and whether that backend is here.
void describe_extended(const PluginHost& host, const PluginLibrary& plugin, std::ostream& out) {
  out << "  extends " << plugin.extends() << ": its kernels run on " << plugin.extends()
      << " devices";
  const auto backend = host.find(plugin.extends());
  if (!backend || backend->is_extension()) out << " (no such backend loaded: unused)";
  out << "\n";
}

void describe_plugin(const PluginHost& host, const PluginLibrary& plugin, std::ostream& out) {
  out << "plugin " << plugin.name();
  if (!plugin.version().empty()) out << " " << plugin.version();
  out << " (ABI " << plugin.abi_version() << ")\n";
  out << "  file: " << plugin.path().string() << "\n";
  if (plugin.is_extension()) {
    describe_extended(host, plugin, out);
  } else {
    describe_devices(plugin, out);
  }
  describe_kernels(plugin, out);
}

}  // namespace

std::string describe_plugins(const PluginHost& host) {
  std::ostringstream out;
  describe_search_path(host, out);
  if (host.plugins().empty()) out << "\nno plugins loaded\n";
  for (const auto& plugin : host.plugins()) {
    out << "\n";
    describe_plugin(host, *plugin, out);
  }
  if (!host.failures().empty()) {
    out << "\nrefused:\n";
    for (const PluginFailure& failure : host.failures()) out << "  " << failure.message << "\n";
  }
  return out.str();
}

}  // namespace tessera
