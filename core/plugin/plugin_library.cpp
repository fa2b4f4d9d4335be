#include "core/plugin/plugin_library.h"

#include <dlfcn.h>

#include <functional>

#include <boost/dll/shared_library.hpp>

#include "core/plugin/abi_text.h"
#include "core/plugin/entry_point.h"
#include "core/plugin/table_check.h"
#include "core/util/error.h"

namespace tessera {
namespace {

// dlerror() repeats the file name ("/p/libx.so: invalid ELF header"); the host's message
// already starts with it, so drop it. Messages about other files (a missing dependency)
// are kept whole.
std::string load_failure_text(const std::string& file, const std::string& dl_text) {
  for (const std::string& prefix : {file + ": ", "./" + file + ": "}) {
    if (dl_text.rfind(prefix, 0) == 0) return dl_text.substr(prefix.size());
  }
  return dl_text;
}

std::unique_ptr<boost::dll::shared_library> open_library(const std::filesystem::path& file) {
  auto library = std::make_unique<boost::dll::shared_library>();
  std::error_code ec;
  // RTLD_NOW: an unresolved symbol fails here, with a message, not in the middle of a run.
  library->load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) {
    // Boost.DLL leaves dlerror() set after a failed load (its own throwing load reads it too).
    const char* dl_text = dlerror();
    throw Error(file.string() + ": cannot load: " +
                load_failure_text(file.string(), dl_text ? dl_text : ec.message()));
  }
  return library;
}

const tsr_plugin* call_entry_point(tsr_plugin_entry_fn entry, const std::string& file) {
  try {
    return entry();
  } catch (...) {
    // The ABI forbids exceptions here; a plugin that throws anyway is refused, not fatal.
    throw Error(file + ": entry point '" TSR_PLUGIN_ENTRY_SYMBOL "' threw an exception");
  }
}

}  // namespace

std::shared_ptr<const PluginLibrary> PluginLibrary::load(const std::filesystem::path& file) {
  const std::string file_text = file.string();
  auto library = open_library(file);
  const tsr_plugin_entry_fn entry = find_entry_point(*library, file_text);
  const tsr_plugin* table = call_entry_point(entry, file_text);
  check_plugin_table(table, file_text);
  return std::make_shared<const PluginLibrary>(Passkey{}, file, std::move(library), table);
}

PluginLibrary::PluginLibrary(Passkey, std::filesystem::path path,
                             std::unique_ptr<boost::dll::shared_library> lib,
                             const tsr_plugin* table)
    : path_(std::move(path)),
      library_(std::move(lib)),
      table_(table),
      name_(table->name),
      version_(table->version ? table->version : ""),
      extends_(table->extends ? table->extends : "") {}

PluginLibrary::~PluginLibrary() = default;

int32_t PluginLibrary::device_count() const {
  if (is_extension()) return 0;  // its device slots may be null and are never called
  const int32_t count = table_->device_count();
  return count > 0 ? count : 0;
}

std::string PluginLibrary::unavailable_reason() const {
  if (is_extension()) return "a kernel plugin: its kernels run on '" + extends_ + "' devices";
  const char* reason = table_->unavailable_reason ? table_->unavailable_reason() : nullptr;
  return reason ? reason : "";
}

tsr_device_info PluginLibrary::device_info(int32_t index) const {
  const int32_t count = device_count();
  if (index < 0 || index >= count) {
    throw Error(name_ + ": no device " + std::to_string(index) + " (the plugin has " +
                std::to_string(count) + ")");
  }
  tsr_device_info info{};
  const tsr_status status = table_->device_info(index, &info);
  if (status != TSR_OK) {
    throw Error(name_ + ":" + std::to_string(index) + ": cannot describe the device: " +
                status_text(status));
  }
  info.name[sizeof info.name - 1] = '\0';
  info.description[sizeof info.description - 1] = '\0';
  return info;
}

bool PluginLibrary::takes_kernel_plugins() const {
  return !is_extension() && table_->buffer_host_ptr != nullptr && table_->step_begin == nullptr &&
         table_->step_end == nullptr;
}

std::span<const tsr_kernel_desc> PluginLibrary::kernels() const {
  return {table_->kernels, static_cast<size_t>(table_->kernel_count)};
}

std::span<const tsr_op_decl> PluginLibrary::op_decls() const {
  return {table_->ops, static_cast<size_t>(table_->op_count)};
}

bool PluginLibrary::owns(const tsr_kernel_desc& kernel) const {
  const auto list = kernels();
  // std::less gives a total order even for pointers into different arrays.
  return !list.empty() && !std::less<const tsr_kernel_desc*>()(&kernel, list.data()) &&
         std::less<const tsr_kernel_desc*>()(&kernel, list.data() + list.size());
}

}  // namespace tessera
