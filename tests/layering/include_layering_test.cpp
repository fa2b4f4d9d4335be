// The layering ARCHITECTURE promises, read from the sources: the core includes
// nothing of the DSL, the backends or the CLI; the DSL nothing of the backends or the
// CLI; a backend only the plugin SDK (and its own files).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/testdata.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

// "file:line: #include "x"" for every quoted include of a source under `folder` that
// starts with one of `forbidden`.
std::vector<std::string> includes_of(const std::string& folder, const std::vector<std::string>& forbidden) {
  std::vector<std::string> found;
  const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& entry : fs::recursive_directory_iterator(source_path(folder))) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".comp" && ext != ".glsl")) continue;
    std::ifstream in(entry.path());
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      for (const std::string& prefix : forbidden) {
        if (m[1].str().rfind(prefix, 0) == 0) {
          found.push_back(fs::relative(entry.path(), source_path("")).string() + ":" + std::to_string(n) + ": " + line);
        }
      }
    }
  }
  return found;
}

TEST(IncludeLayering, TheCoreIncludesNoDslBackendOrCli) {
  EXPECT_THAT(includes_of("core", {"dsl/", "backends/", "tools/"}), ::testing::IsEmpty());
}

TEST(IncludeLayering, TheDslIncludesNoBackendOrCli) {
  EXPECT_THAT(includes_of("dsl", {"backends/", "tools/"}), ::testing::IsEmpty());
}

TEST(IncludeLayering, BackendsIncludeOnlyThePluginSdk) {
  EXPECT_THAT(includes_of("backends", {"core/", "dsl/", "tools/", "tests/"}), ::testing::IsEmpty());
}

TEST(IncludeLayering, TheScanSeesIncludes) {
  // The core's own includes are found: the scan reads the files it should.
  EXPECT_THAT(includes_of("core/engine", {"core/"}), ::testing::Not(::testing::IsEmpty()));
}

}  // namespace
}  // namespace tessera::test
