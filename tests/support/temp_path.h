// Per-process temporary file names: ctest runs test processes in parallel (and
// several build trees may test at once), so a fixed name in /tmp would collide.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tessera::test {

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          ("tessera-" + std::to_string(getpid()) + "-" + name))
      .string();
}

}  // namespace tessera::test
