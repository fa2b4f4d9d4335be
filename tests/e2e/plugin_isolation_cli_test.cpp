// Plugins that crash while loading cannot take the CLI down: `tessera backends` lists
// them as refused (each file is loaded in a child process first) and the others with
// their devices; generate warns and runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

std::string tessera(const std::string& args) {
  return "TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " + shell_quote(tessera_exe()) + " " + args;
}

TEST(PluginIsolationCli, BackendsListsACrashingPluginAsRefused) {
  const CommandResult r = run_command(tessera("backends --plugin-dir " + shell_quote(TESSERA_CRASH_PLUGIN_DIR)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("plugin cpu "));
  EXPECT_THAT(r.out, HasSubstr("device cpu:0: "));
  EXPECT_THAT(r.out, HasSubstr("libfake_aborting.so: crashed while loading: signal 6 (Aborted)"));
}

TEST(PluginIsolationCli, GenerateWarnsAndRuns) {
  const Golden g = load_golden();
  const CommandResult r = run_command(tessera("generate --plugin-dir " + shell_quote(TESSERA_CRASH_PLUGIN_DIR) +
                                              " -m " + shell_quote(testdata_path("stories260K/stories260K.gguf")) +
                                              " -p " + shell_quote(g.prompt) + " -n 64 --temp 0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, g.text + "\n");
  EXPECT_THAT(r.err, HasSubstr("tessera: warning: plugin refused: "));
  EXPECT_THAT(r.err, HasSubstr("libfake_aborting.so: crashed while loading: signal 6"));
}

}  // namespace
}  // namespace tessera::test
