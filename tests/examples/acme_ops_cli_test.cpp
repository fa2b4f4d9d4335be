// The acme_ops example plugin and examples/acme_ops/llama_acme.tsr through the CLI: a
// model calling an op a plugin declares runs (stories260K's golden text: the op with
// alpha 1 is SwiGLU), is checked against the declaration, is listed, is refused with
// the plugin named when the plugin is missing, is verified against the declaring
// plugin's kernel, falls back to the CPU on a backend without the op, and moves
// between backends mid-generation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }
std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }
std::string acme_model() { return shell_quote(source_path("examples/acme_ops/llama_acme.tsr")); }
// TESSERA_PLUGIN_PATH with the built backends, acme, and `more` directories.
std::string plugin_path(const std::string& more = "") {
  return "TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir() + ":" + TESSERA_ACME_PLUGIN_DIR + more) + " ";
}

CommandResult generate(const std::string& env, const std::string& flags, int n = 64) {
  const Golden g = load_golden();
  return run_command(env + tessera("generate -m " + gguf() + " --arch " + acme_model() + " -p " +
                                   shell_quote(g.prompt) + " -n " + std::to_string(n) + " --temp 0 " + flags));
}

// The line of llama_acme.tsr that calls the plugin's op.
int op_line() {
  std::ifstream in(source_path("examples/acme_ops/llama_acme.tsr"));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("acme.fused_silu_mul(") != std::string::npos && line.find('#') != 0) return n;
  }
  return -1;
}

TEST(AcmeOpsCli, ModelCallingThePluginsOpGivesTheGoldenText) {
  // ACME_STATS makes the plugin print its call counts when it is unloaded.
  const CommandResult r = generate("ACME_STATS=1 " + plugin_path(), "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("acme_ops: ([0-9]+) fused_silu_mul calls, ([0-9]+) rms_norm calls")))
      << r.err;
  // One op per layer (5) per step, two norms per layer and the final one (11): 64
  // tokens take at least 64 steps. The override of RMS_NORM runs in place of the CPU's.
  const long op_calls = std::stol(m[1].str()), norm_calls = std::stol(m[2].str());
  EXPECT_EQ(op_calls % 5, 0) << op_calls;
  EXPECT_GE(op_calls, 5 * 64);
  EXPECT_EQ(norm_calls, op_calls / 5 * 11);
}

TEST(AcmeOpsCli, AnAttributeOfThePluginsOpChangesTheResult) {
  const CommandResult one = generate(plugin_path(), "--set acme_alpha=1.0", 16);
  const CommandResult quarter = generate(plugin_path(), "--set acme_alpha=0.25", 16);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(quarter.exit_code, 0) << quarter.err;
  const std::string golden = load_golden().text;
  EXPECT_EQ(one.out.substr(0, one.out.size() - 1), golden.substr(0, one.out.size() - 1));  // SwiGLU's tokens
  EXPECT_NE(quarter.out, one.out);
}

TEST(AcmeOpsCli, CheckCountsThePluginsOpInTheSummary) {
  const CommandResult r = run_command(tessera("check " + acme_model() + " -m " + gguf() + " --plugin-dir " +
                                              shell_quote(TESSERA_ACME_PLUGIN_DIR)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("acme.fused_silu_mul 5"));
  EXPECT_THAT(r.out, HasSubstr("acme.fused_silu_mul 1)"));  // per layer, the last in op order
}

TEST(AcmeOpsCli, WithoutThePluginTheCallIsADiagnosticNamingIt) {
  const CommandResult r = run_command(tessera("check " + acme_model() + " -m " + gguf()));
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_GT(op_line(), 0);
  EXPECT_THAT(r.err, HasSubstr("llama_acme.tsr:" + std::to_string(op_line()) +
                               ":7: error: 'acme.fused_silu_mul' is an op of plugin 'acme', which is not loaded"));
  EXPECT_THAT(r.err, HasSubstr("--plugin-dir DIR or TESSERA_PLUGIN_PATH"));
  EXPECT_THAT(r.err, HasSubstr("      ^\n"));
}

TEST(AcmeOpsCli, BackendsListsTheDeclaredOpAndItsKernels) {
  const CommandResult r = run_command(tessera("backends --plugin-dir " + shell_quote(TESSERA_ACME_PLUGIN_DIR)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("plugin acme 0.1.0 (ABI 4)\n"
                               "  file: " + std::string(TESSERA_ACME_PLUGIN_DIR) + "/libacme.so\n"
                               "  extends cpu: its kernels run on cpu devices\n"
                               "  declares:\n"
                               "    acme.fused_silu_mul(gate, up; alpha: float = 1): gate * sigmoid(alpha * gate) * up, "
                               "elementwise\n"
                               "  kernels:\n"
                               "    rms_norm: f32\n"
                               "    acme.fused_silu_mul: f32\n"));
}

TEST(AcmeOpsCli, VerifyChecksAnotherKernelOfTheOpAgainstTheDeclaringPlugins) {
  // wrong_swiglu brings a kernel for acme.fused_silu_mul, 1% off, above acme's own.
  const CommandResult r = generate(plugin_path(std::string(":") + TESSERA_TEST_PLUGIN_DIR), "--verify cpu", 4);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("verify: step 0, node "));
  EXPECT_THAT(r.err, HasSubstr(" (acme.fused_silu_mul, layer 0: decoder_layer: g = acme.fused_silu_mul("));
  EXPECT_THAT(r.err, HasSubstr("llama_acme.tsr:" + std::to_string(op_line()) + ":3: output 'blk.0.g' [5, 172] f32 on cpu:0 differs"));
  EXPECT_THAT(r.err, HasSubstr("max relative error 0.01"));
}

TEST(AcmeOpsCli, VerifyPassesWithTheDeclaringPluginsKernel) {
  const CommandResult r = generate(plugin_path(), "--verify cpu", 4);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tessera: verify: 4 step(s), "));
}

TEST(AcmeOpsCli, HiddenKernelOfTheOpIsRefusedNamingIt) {
  const CommandResult r =
      generate("TESSERA_HIDE_KERNELS=cpu:acme.fused_silu_mul:f32 " + plugin_path(), "--no-fallback", 4);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("backend 'cpu' has no kernel for acme.fused_silu_mul with f32 data, needed by node "));
  EXPECT_THAT(r.err, HasSubstr("(acme.fused_silu_mul, layer 0: decoder_layer: "));
}

TEST(AcmeOpsCli, BackendWithoutTheOpFallsBackToTheCpuForIt) {
  const CommandResult r = generate(plugin_path(std::string(":") + TESSERA_TEST_BACKEND_DIR), "-b partial");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
  EXPECT_THAT(r.err, HasSubstr("acme.fused_silu_mul f32 (5)"));
  EXPECT_THAT(r.err, HasSubstr("run on cpu:0"));
}

TEST(AcmeOpsCli, GenerationWithThePluginsOpMovesBetweenBackends) {
  const CommandResult r =
      generate(plugin_path(std::string(":") + TESSERA_TEST_BACKEND_DIR), "--swap-at 16:partial,40:cpu -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
  EXPECT_THAT(r.err, HasSubstr("moved 2 time(s), ending on cpu:0"));
}

TEST(AcmeOpsCli, VulkanRunsThePluginsOpOnTheCpuFallback) {
  const CommandResult listed = run_command(plugin_path() + tessera("backends"));
  if (listed.out.find("device vulkan:0") == std::string::npos) GTEST_SKIP() << "no Vulkan device";
  const CommandResult r =
      generate("MESA_SHADER_CACHE_DIR=" + shell_quote(TESSERA_MESA_CACHE_DIR) + " " + plugin_path(), "-b vulkan");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
  EXPECT_THAT(r.err, HasSubstr("vulkan:0 has no kernel for acme.fused_silu_mul f32 (5)"));
}

}  // namespace
}  // namespace tessera::test
