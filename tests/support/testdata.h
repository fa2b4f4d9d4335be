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

// SmolLM2-135M-Instruct.Q4_1.gguf: $TESSERA_SMOLLM2 (scripts/test.sh sets it from
// scripts/fetch-model.sh), else that script's cache folder; "" when it is in neither.
inline std::string smollm2_path() {
  if (const char* env = std::getenv("TESSERA_SMOLLM2"); env && *env) return env;
  const char* cache = std::getenv("TESSERA_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  const std::filesystem::path dir = cache && *cache ? std::filesystem::path(cache)
                                                    : std::filesystem::path(home ? home : "/") / ".cache/tessera";
  const auto p = dir / "SmolLM2-135M-Instruct.Q4_1.gguf";
  return std::filesystem::exists(p) ? p.string() : "";
}

inline std::string plugin_dir() { return TESSERA_PLUGIN_BUILD_DIR; }

inline std::string tessera_exe() {
  return (std::filesystem::path(TESSERA_BINARY_DIR) / "bin" / "tessera").string();
}

}  // namespace tessera::test
