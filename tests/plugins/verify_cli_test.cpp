// `tessera generate --verify cpu`: every op checked against the CPU backend's own
// kernels. A deliberately wrong kernel plugin (SWIGLU 1% off) is found at the first
// swiglu node with its DSL origin, the errors and the step; correct kernels pass
// with a count of the ops checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }
std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }

CommandResult generate(const std::string& flags) {
  return run_command(tessera("generate -m " + gguf() + " -p 'Once upon a time' -n 8 --temp 0 " + flags));
}

// The line of models/llama.tsr whose statement calls the dense feed-forward's swiglu.
int swiglu_line() {
  std::ifstream in(source_path("models/llama.tsr"));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("swiglu(linear(h, w_gate[i])") != std::string::npos && line.find('#') != 0) return n;
  }
  return -1;
}

TEST(VerifyMode, AWrongKernelIsFoundAtTheFirstSwigluNode) {
  const CommandResult r = generate("--plugin-dir " + shell_quote(TESSERA_TEST_PLUGIN_DIR) + " --verify cpu");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("verify: step 0, node "));
  EXPECT_THAT(r.err, HasSubstr(" (swiglu, layer 0: "));
  ASSERT_GT(swiglu_line(), 0);
  EXPECT_THAT(r.err, HasSubstr("llama.tsr:" + std::to_string(swiglu_line()) + ":"));
  EXPECT_THAT(r.err, HasSubstr("[5, 172] f32 on cpu:0 differs from the reference cpu:0: max absolute error "));
  EXPECT_THAT(r.err, HasSubstr("max relative error 0.01"));  // 1% of the output's scale
  EXPECT_THAT(r.err, HasSubstr("tolerance 0.001 relative"));
}

TEST(VerifyMode, TheCpuKernelsAgreeWithThemselves) {
  const CommandResult r = generate("--verify cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tessera: verify: 8 step(s), "));
  // Bit for bit the same: no op came closer to its tolerance than another, none is named.
  EXPECT_THAT(r.err, HasSubstr("tessera: verify: 8 step(s), 712 op outputs agreed with cpu:0\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("non-finite")));
}

TEST(VerifyMode, WithoutVerifyTheWrongKernelRunsUnnoticed) {
  const CommandResult r = generate("--plugin-dir " + shell_quote(TESSERA_TEST_PLUGIN_DIR));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("verify"), std::string::npos) << r.err;
}

TEST(VerifyMode, AnUnknownReferenceIsAnError) {
  const CommandResult r = generate("--verify nosuch");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no backend named 'nosuch'"));
}

}  // namespace
}  // namespace tessera::test
