// The example plugin through the `tessera` CLI: `--plugin-dir` adds it, generation
// still gives the golden stories260K text while its kernels run, and `backends` lists it.
#include <gtest/gtest.h>

#include <regex>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

std::string example_dir() { return shell_quote(TESSERA_EXAMPLE_PLUGIN_DIR); }

TEST(FastSiluCli, GenerateGivesTheGoldenTextWithItsKernels) {
  const Golden g = load_golden();
  // FAST_SILU_STATS makes the plugin print its call counts when it is unloaded.
  const auto r = run_command("FAST_SILU_STATS=1 " +
                             tessera("generate -m " + shell_quote(testdata_path("stories260K/stories260K.gguf")) +
                                     " -p " + shell_quote(g.prompt) + " -n 64 --temp 0 --plugin-dir " +
                                     example_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, g.text + "\n");
  std::smatch m;
  const std::regex stats("fast_silu: 0 silu calls, ([0-9]+) swiglu calls\n");
  ASSERT_TRUE(std::regex_search(r.err, m, stats)) << r.err;
  // One SWIGLU per layer (5) per forward step, and 64 tokens need at least 64 steps.
  const long swiglu_calls = std::stol(m[1].str());
  EXPECT_EQ(swiglu_calls % 5, 0) << swiglu_calls;
  EXPECT_GE(swiglu_calls, 5 * 64) << swiglu_calls;
}

TEST(FastSiluCli, BackendsListsItAsExtendingCpu) {
  const auto r = run_command(tessera("backends --plugin-dir " + example_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("plugin fast_silu 0.1.0 (ABI 4)\n"
                       "  file: " + std::string(TESSERA_EXAMPLE_PLUGIN_DIR) + "/libfast_silu.so\n"
                       "  extends cpu: its kernels run on cpu devices\n"
                       "  kernels:\n"
                       "    silu: f32\n"
                       "    swiglu: f32\n"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace tessera::test
