// One loaded plugin (a backend, or a kernel plugin extending one): the shared library,
// kept mapped for as long as anything made from it (devices, buffers, kernel tables)
// is alive, and its validated C table.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include <tessera/plugin_abi.h>

namespace boost::dll {
class shared_library;
}

namespace tessera {

// Owned through std::shared_ptr: every Device, and the KernelRegistry, holds one, so
// the library is unloaded only after the last of them is gone (see device.h).
class PluginLibrary {
 public:
  // Loads `file` (RTLD_NOW | RTLD_LOCAL), calls its entry point and validates the
  // table (table_check.h). Throws tessera::Error naming the file and the cause:
  //   "<file>: cannot load: <dlerror text>"
  //   "<file>: no entry point 'tessera_plugin_entry' (not a Tessera plugin?)"
  //   "<file>: plugin ABI version 7 is not supported by this host (expects 1)"
  static std::shared_ptr<const PluginLibrary> load(const std::filesystem::path& file);

  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;
  ~PluginLibrary();  // unloads the library

  const std::filesystem::path& path() const { return path_; }  // as given to load()
  const std::string& name() const { return name_; }            // "cpu", "vulkan", ...
  const std::string& version() const { return version_; }      // "" if the plugin gives none
  uint32_t abi_version() const { return table_->abi_version; }
  const tsr_plugin& table() const { return *table_; }

  // The backend whose devices this kernel plugin's kernels run on ("cpu"); "" for a
  // backend. See tsr_plugin.extends.
  const std::string& extends() const { return extends_; }
  bool is_extension() const { return !extends_.empty(); }
  // Whether kernel plugins extending this backend can run on its devices: they read
  // tensors through host_data, in call order, so its buffers must be host-visible
  // (buffer_host_ptr set) and its kernels synchronous (step_begin, step_end null).
  bool takes_kernel_plugins() const;

  // Devices the plugin can drive now (0 when none, and always 0 for a kernel plugin),
  // and why there are none ("" if unsaid).
  int32_t device_count() const;
  std::string unavailable_reason() const;
  // Static description of device `index`; throws tessera::Error if the index is out
  // of range or the plugin fails. Strings are NUL-terminated whatever the plugin wrote.
  tsr_device_info device_info(int32_t index) const;

  std::span<const tsr_kernel_desc> kernels() const;
  // The ops the plugin declares (validated at load: op_decl_check.h).
  std::span<const tsr_op_decl> op_decls() const;
  // True if `kernel` is an entry of this plugin's kernel list.
  bool owns(const tsr_kernel_desc& kernel) const;

 private:
  struct Passkey {};

 public:
  PluginLibrary(Passkey, std::filesystem::path path, std::unique_ptr<boost::dll::shared_library> lib,
                const tsr_plugin* table);

 private:
  std::filesystem::path path_;
  std::unique_ptr<boost::dll::shared_library> library_;
  const tsr_plugin* table_;  // static storage inside library_
  std::string name_;
  std::string version_;
  std::string extends_;
};

}  // namespace tessera
