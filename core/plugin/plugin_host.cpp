#include "core/plugin/plugin_host.h"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "core/util/error.h"

namespace tessera {
namespace {

bool is_plugin_file_name(const std::string& name) {
  return name.size() > 6 && name.starts_with("lib") && name.ends_with(".so");
}

// lib*.so entries of `dir` that are (or link to) regular files, sorted by file name.
std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir,
                                                   std::error_code& ec) {
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (is_plugin_file_name(it->path().filename().string()) && it->is_regular_file(type_ec)) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
  return files;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t colon = std::min(list.find(':', start), list.size());
    if (colon > start) parts.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return parts;
}

}  // namespace

PluginHost::PluginHost(const std::vector<std::string>& search_dirs, PluginLoadPolicy policy)
    : policy_(std::move(policy)) {
  for (const std::string& dir : search_dirs) scan_directory(dir);
}

std::filesystem::path PluginHost::visit_key(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path key = std::filesystem::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : key;
}

bool PluginHost::first_visit(const std::filesystem::path& path) { return visited_.insert(visit_key(path)).second; }

std::filesystem::path PluginHost::unload(std::string_view name) {
  auto it = std::find_if(plugins_.begin(), plugins_.end(), [&](const auto& p) { return p->name() == name; });
  if (it == plugins_.end()) throw Error("cannot unload plugin '" + std::string(name) + "': no plugin has that name");
  const long others = it->use_count() - 1;
  if (others > 0) {
    throw Error("cannot unload plugin '" + std::string(name) + "' (" + (*it)->path().string() + "): still in use, " +
                std::to_string(others) + " reference(s) besides the host's (open devices, kernel registries, "
                "executors); drop them first");
  }
  const std::filesystem::path file = (*it)->path();
  plugins_.erase(it);  // the last reference: the library is closed here
  visited_.erase(visit_key(file));  // so that load_file takes the file again
  return file;
}

std::shared_ptr<const PluginLibrary> PluginHost::reload(std::string_view name) {
  const std::filesystem::path file = unload(name);
  const size_t failures = failures_.size();
  load_file(file);
  if (failures_.size() > failures) throw Error("cannot reload plugin '" + std::string(name) + "': " + failures_.back().message);
  // Loaded again, or probed and kept available by the policy: load it now.
  if (auto plugin = load_available(name)) return plugin;
  throw Error("cannot reload plugin '" + std::string(name) + "': " + file.string() + " now holds another plugin");
}

void PluginHost::refuse(const std::filesystem::path& file, std::string message) {
  failures_.push_back(PluginFailure{.path = file.string(), .message = std::move(message)});
}

void PluginHost::scan_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  const bool exists = std::filesystem::is_directory(dir, ec);
  searched_.push_back(PluginSearchDir{.path = dir.string(), .exists = exists});
  if (!exists || !first_visit(dir)) return;

  const std::vector<std::filesystem::path> files = plugin_files_in(dir, ec);
  if (ec) {
    refuse(dir, dir.string() + ": cannot read the plugin directory: " + ec.message());
    return;
  }
  for (const auto& file : files) load_file(file);
}

void PluginHost::load_file(const std::filesystem::path& file) {
  if (!first_visit(file)) return;
  if (!policy_.probe_first) return load_library(file);
  PluginProbe probe = probe_plugin(file, policy_.probe_timeout);
  if (!probe.ok) return refuse(file, probe.failure);
  if (policy_.wanted && !policy_.wanted(probe)) {
    available_.push_back(std::move(probe));
    return;
  }
  load_library(file);
}

std::shared_ptr<const PluginLibrary> PluginHost::load_available(std::string_view name) {
  if (auto loaded = find(name)) return loaded;
  const auto it = std::find_if(available_.begin(), available_.end(), [&](const PluginProbe& p) { return p.name == name; });
  if (it == available_.end()) return nullptr;
  const std::filesystem::path file = it->path;
  available_.erase(it);
  load_library(file);
  return find(name);
}

void PluginHost::load_available_backend(std::string_view backend) {
  load_available(backend);
  std::vector<std::string> extensions;
  for (const PluginProbe& p : available_) {
    if (p.extends == backend) extensions.push_back(p.name);
  }
  for (const std::string& name : extensions) load_available(name);
}

void PluginHost::load_library(const std::filesystem::path& file) {
  std::shared_ptr<const PluginLibrary> plugin;
  try {
    plugin = PluginLibrary::load(file);
  } catch (const std::exception& e) {
    // tessera::Error for every refusal; anything else (bad_alloc, filesystem) is
    // recorded the same way so one bad file never stops the scan.
    refuse(file, e.what());
    return;
  }
  if (const auto earlier = find(plugin->name())) {
    refuse(file, file.string() + ": plugin '" + plugin->name() + "' already loaded from " +
                     earlier->path().string());
    return;  // `plugin` is unloaded here
  }
  plugins_.push_back(std::move(plugin));
}

CustomOpCatalog PluginHost::op_catalog() const {
  CustomOpCatalog catalog;
  for (const auto& plugin : plugins_) {
    catalog.add_plugin(plugin->name());
    for (const tsr_op_decl& d : plugin->op_decls()) catalog.add(CustomOpSchema::from_decl(d, plugin->name()));
  }
  return catalog;
}

std::shared_ptr<const PluginLibrary> PluginHost::find(std::string_view name) const {
  for (const auto& plugin : plugins_) {
    if (plugin->name() == name) return plugin;
  }
  return nullptr;
}

std::vector<std::string> PluginHost::compose_search_dirs(const std::string& cli_plugin_dir,
                                                         const std::string& plugin_path,
                                                         const std::string& executable,
                                                         const std::string& install_dir) {
  std::vector<std::string> candidates;
  if (!cli_plugin_dir.empty()) candidates.push_back(cli_plugin_dir);
  for (const std::string& entry : split_path_list(plugin_path)) candidates.push_back(entry);
  if (!executable.empty()) {
    candidates.push_back(
        (std::filesystem::path(executable).parent_path() / ".." / "lib" / "tessera").string());
  }
  if (!install_dir.empty()) candidates.push_back(install_dir);

  std::vector<std::string> dirs;
  for (const std::string& candidate : candidates) {
    // "a/b/", "a/./b" and "a/b" are one directory.
    std::string normal = std::filesystem::path(candidate).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    if (std::find(dirs.begin(), dirs.end(), normal) == dirs.end()) dirs.push_back(normal);
  }
  return dirs;
}

std::vector<std::string> PluginHost::default_search_dirs(const std::string& cli_plugin_dir) {
  const char* plugin_path = std::getenv("TESSERA_PLUGIN_PATH");
  std::error_code ec;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  return compose_search_dirs(cli_plugin_dir, plugin_path ? plugin_path : "",
                             ec ? std::string() : executable.string(),
                             TESSERA_PLUGIN_INSTALL_DIR);
}

}  // namespace tessera
