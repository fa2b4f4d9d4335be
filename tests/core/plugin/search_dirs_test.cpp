#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "core/plugin/plugin_host.h"
#include "support/testdata.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

TEST(PluginSearchDirs, OrderIsCliDirThenPluginPathThenExecutableThenInstallDir) {
  EXPECT_THAT(PluginHost::compose_search_dirs("/cli", "/env/a:/env/b", "/opt/t/bin/tessera",
                                              "/usr/lib/tessera"),
              ElementsAre("/cli", "/env/a", "/env/b", "/opt/t/lib/tessera", "/usr/lib/tessera"));
}

TEST(PluginSearchDirs, EmptyEntriesAreLeftOut) {
  EXPECT_THAT(PluginHost::compose_search_dirs("", ":/env/a::", "", "/usr/lib/tessera"),
              ElementsAre("/env/a", "/usr/lib/tessera"));
}

TEST(PluginSearchDirs, DuplicatesKeepTheirFirstPlace) {
  EXPECT_THAT(PluginHost::compose_search_dirs("/opt/t/lib/tessera/", "/x:/opt/t/lib/./tessera",
                                              "/opt/t/bin/tessera", "/x"),
              ElementsAre("/opt/t/lib/tessera", "/x"));
}

// Sets an environment variable for one test and restores the old value after it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(PluginSearchDirs, DefaultReadsTesseraPluginPathAndTheExecutablesPlace) {
  const ScopedEnv env("TESSERA_PLUGIN_PATH", "/env/a:/env/b");
  // The test runs from <build>/bin, so <exe>/../lib/tessera is the build's plugin dir.
  EXPECT_THAT(PluginHost::default_search_dirs("/cli"),
              ElementsAre("/cli", "/env/a", "/env/b", test::plugin_dir(),
                          TESSERA_PLUGIN_INSTALL_DIR));
}

}  // namespace
}  // namespace tessera
