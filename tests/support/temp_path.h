// Per-process temporary file names: ctest runs test processes in parallel (and
// several build trees may test at once), so a fixed name in /tmp would collide.
// Every name handed out is removed when the test process exits (a file, or a folder
// with what is in it), so a run of the suite leaves nothing behind in /tmp; set
// TESSERA_KEEP_TEST_FILES=1 to keep them for a look after a failure.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::test {

namespace detail {

class TempPathRegistry {
 public:
  void add(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    paths_.push_back(path);
  }
  ~TempPathRegistry() {
    // A forked child that exits must not remove its parent's files.
    if (getpid() != owner_ || std::getenv("TESSERA_KEEP_TEST_FILES") != nullptr) return;
    for (const std::string& path : paths_) {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  }

 private:
  pid_t owner_ = getpid();
  std::mutex mutex_;
  std::vector<std::string> paths_;
};

inline TempPathRegistry& temp_path_registry() {
  static TempPathRegistry registry;
  return registry;
}

}  // namespace detail

inline std::string temp_path(const std::string& name) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) /
                            ("tessera-" + std::to_string(getpid()) + "-" + name))
                               .string();
  detail::temp_path_registry().add(path);
  return path;
}

}  // namespace tessera::test
