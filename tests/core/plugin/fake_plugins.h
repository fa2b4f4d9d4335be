// Helpers for the plugin host's tests: where the fake plugins are, temporary plugin
// directories, whether a library is still mapped, and the fakes' live-object counters.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/error.h"

namespace tessera::test {

inline std::string fake_plugin_dir() { return FAKE_PLUGIN_DIR; }

// Path of a fake plugin by variant: "good" -> <dir>/libfake_good.so.
inline std::string fake_plugin(const std::string& variant) {
  return fake_plugin_dir() + "/libfake_" + variant + ".so";
}

// The message of the tessera::Error `f` throws, or a marker that it threw none.
template <typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "<no tessera::Error thrown>";
}

// True while `path` is mapped in this process (RTLD_NOLOAD does not load it).
inline bool is_mapped(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

// Calls the fake backend's counter `symbol` ("fake_open_devices", "fake_live_buffers")
// in the mapped library `path`; -1 when the library is not mapped.
inline int fake_counter(const std::string& path, const char* symbol) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return -1;
  auto counter = reinterpret_cast<int (*)()>(dlsym(handle, symbol));
  const int value = counter ? counter() : -1;
  dlclose(handle);
  return value;
}

// A fresh directory under the system temp dir, removed with its contents at scope end.
class TempDir {
 public:
  TempDir() {
    static int serial = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("tessera_plugin_test_" + std::to_string(getpid()) + "_" + std::to_string(serial++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

  // Writes `bytes` into <dir>/<name>; returns the file's path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path_ / name, std::ios::binary) << bytes;
    return file(name);
  }
  // Copies a fake plugin into the directory as <name>; returns the copy's path.
  std::string copy_plugin(const std::string& variant, const std::string& name) const {
    std::filesystem::copy_file(fake_plugin(variant), path_ / name);
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace tessera::test
