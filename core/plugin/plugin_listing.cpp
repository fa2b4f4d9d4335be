#include "core/plugin/plugin_listing.h"

#include <algorithm>
#include <array>
#include <exception>
#include <sstream>
#include <vector>

#include "core/ops/custom_op.h"
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

// One line per op that has kernels: the built-in ones in op order, then the declared
// ones in kernel order: "add: f32 i32", "acme.fused_silu_mul: f32".
void describe_kernels(const PluginLibrary& plugin, std::ostream& out) {
  if (plugin.kernels().empty()) {
    out << "  kernels: none\n";
    return;
  }
  std::array<std::array<bool, kDTypeCount>, kOpKindCount> has{};
  std::vector<std::pair<std::string, std::array<bool, kDTypeCount>>> declared;
  for (const tsr_kernel_desc& k : plugin.kernels()) {
    if (k.op != TSR_OP_CUSTOM) {
      has[k.op][k.dtype] = true;
      continue;
    }
    auto it = std::find_if(declared.begin(), declared.end(), [&](const auto& d) { return d.first == k.op_name; });
    if (it == declared.end()) it = declared.insert(declared.end(), {k.op_name, {}});
    it->second[k.dtype] = true;
  }
  const auto dtypes_of = [](const std::array<bool, kDTypeCount>& row) {
    std::string dtypes;
    for (int dtype = 0; dtype < kDTypeCount; ++dtype) {
      if (row[dtype]) dtypes += " " + std::string(dtype_name(static_cast<DType>(dtype)));
    }
    return dtypes;
  };
  out << "  kernels:\n";
  for (int op = 0; op < kOpKindCount; ++op) {
    const std::string dtypes = dtypes_of(has[op]);
    if (!dtypes.empty()) out << "    " << op_name(static_cast<OpKind>(op)) << ":" << dtypes << "\n";
  }
  for (const auto& [name, row] : declared) out << "    " << name << ":" << dtypes_of(row) << "\n";
}

// The ops the plugin adds to the language, with their signatures and help.
void describe_declared_ops(const PluginLibrary& plugin, std::ostream& out) {
  if (plugin.op_decls().empty()) return;
  out << "  declares:\n";
  for (const tsr_op_decl& d : plugin.op_decls()) {
    const CustomOpSchema s = CustomOpSchema::from_decl(d, plugin.name());
    out << "    " << s.signature() << (s.help.empty() ? "" : ": " + s.help) << "\n";
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
  describe_declared_ops(plugin, out);
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
