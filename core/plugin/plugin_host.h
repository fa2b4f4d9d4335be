// Finds and loads the backend plugins: scans directories for lib*.so, keeps the ones
// that load and validate, and records every refused file with its reason.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/custom_op.h"
#include "core/plugin/plugin_library.h"
#include "core/plugin/plugin_probe.h"

namespace tessera {

struct PluginFailure {
  std::string path;     // the refused file, or a directory that could not be read
  std::string message;  // the whole reason, starting with the path
};

struct PluginSearchDir {
  std::string path;
  bool exists = false;  // a missing directory is skipped, not an error
};

// How the host treats the files it finds.
struct PluginLoadPolicy {
  // Loads each file in a child process first (probe_plugin): one that crashes or
  // hangs there is refused with the reason and never loaded into this process.
  bool probe_first = false;
  std::chrono::milliseconds probe_timeout{20000};
  // With probe_first: which plugins to load into this process (null: all). The others
  // are kept as available(), to load later by name (load_available).
  std::function<bool(const PluginProbe&)> wanted;
};

class PluginHost {
 public:
  PluginHost() = default;
  // Scans each directory in order (see scan_directory).
  explicit PluginHost(const std::vector<std::string>& search_dirs, PluginLoadPolicy policy = {});

  // Loads every lib*.so of `dir`, in file name order. A file that fails to load is
  // recorded in failures() and does not stop the others. A plugin whose name is
  // already taken is refused: "<file>: plugin 'cpu' already loaded from <first file>".
  // A directory (or file) reached a second time, by whatever spelling, is skipped.
  void scan_directory(const std::filesystem::path& dir);
  // Loads one plugin file with the same rules; never throws for a bad plugin.
  void load_file(const std::filesystem::path& file);

  // Unloads the plugin called `name`, once nothing made from it is alive (devices and
  // their buffers closed, registries and executors dropped): the host then holds the
  // last reference, and the library is closed here, gone from the process if it was
  // built to unload (tessera_add_plugin's flags). Throws tessera::Error, changing
  // nothing, when no plugin has that name or it is still in use. Returns its file.
  std::filesystem::path unload(std::string_view name);
  // unload(name), then load_file() of the same file (rebuilt since, say). Returns the
  // plugin loaded; throws tessera::Error with the reason when the file no longer loads
  // (also recorded in failures()), the plugin then staying unloaded.
  std::shared_ptr<const PluginLibrary> reload(std::string_view name);

  // The plugin called `name`, or nullptr.
  std::shared_ptr<const PluginLibrary> find(std::string_view name) const;
  // The plugin called `name`, loading it first when it is available but was not
  // wanted; nullptr when there is none (a refused load is recorded in failures()).
  std::shared_ptr<const PluginLibrary> load_available(std::string_view name);
  // load_available(backend), and every available kernel plugin extending it: what
  // opening that backend needs.
  void load_available_backend(std::string_view backend);
  // Plugins probed and not loaded (not wanted by the policy), in scan order.
  const std::vector<PluginProbe>& available() const { return available_; }
  // The ops the loaded plugins declare, and the plugins' names: what a model
  // definition may call as `plugin.op(...)`.
  CustomOpCatalog op_catalog() const;
  // Loaded plugins in load order: the first directory's first, then by file name.
  const std::vector<std::shared_ptr<const PluginLibrary>>& plugins() const { return plugins_; }
  const std::vector<PluginFailure>& failures() const { return failures_; }
  const std::vector<PluginSearchDir>& searched_dirs() const { return searched_; }

  // The CLI's search order: `cli_plugin_dir` (--plugin-dir, skipped if empty), each
  // entry of $TESSERA_PLUGIN_PATH, <directory of the running executable>/../lib/tessera,
  // then the install directory TESSERA_PLUGIN_INSTALL_DIR. The only place that reads
  // the environment.
  static std::vector<std::string> default_search_dirs(const std::string& cli_plugin_dir);
  // The same order from explicit inputs: `plugin_path` is colon-separated (empty
  // entries ignored), `executable` the running program's path ("" to leave it out).
  // Duplicates (after lexical normalisation) keep their first place.
  static std::vector<std::string> compose_search_dirs(const std::string& cli_plugin_dir,
                                                      const std::string& plugin_path,
                                                      const std::string& executable,
                                                      const std::string& install_dir);

 private:
  // False if `path` was seen before (compared by canonical path).
  bool first_visit(const std::filesystem::path& path);
  static std::filesystem::path visit_key(const std::filesystem::path& path);
  void refuse(const std::filesystem::path& file, std::string message);
  void load_library(const std::filesystem::path& file);

  std::vector<std::shared_ptr<const PluginLibrary>> plugins_;
  std::vector<PluginProbe> available_;
  PluginLoadPolicy policy_;
  std::vector<PluginFailure> failures_;
  std::vector<PluginSearchDir> searched_;
  std::set<std::filesystem::path> visited_;
};

}  // namespace tessera
