// Where tests find ../shared/testdata (override with TESSERA_TESTDATA) and the
// other paths of the build, so no test hard-codes a location.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tessera::test {

inline std::string testdata_path(const std::string& relative) {
  const char* env = std::getenv("TESSERA_TESTDATA");
  std::filesystem::path root = (env && *env) ? env : TESSERA_TESTDATA_DEFAULT;
  return (root / relative).string();
}

inline std::string source_path(const std::string& relative) {
  return (std::filesystem::path(TESSERA_SOURCE_DIR) / relative).string();
}

inline std::string plugin_dir() { return TESSERA_PLUGIN_BUILD_DIR; }

inline std::string tessera_exe() {
  return (std::filesystem::path(TESSERA_BINARY_DIR) / "bin" / "tessera").string();
}

}  // namespace tessera::test
