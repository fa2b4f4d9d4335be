// examples/embed: the program embedding Tessera through its C++ API gives the golden
// stories260K text, with a built-in definition and with one calling a plugin's op.
#include <gtest/gtest.h>

#include <string>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

CommandResult embed(const std::string& flags) {
  const Golden g = load_golden();
  return run_command(shell_quote(TESSERA_EMBED_EXE) + " -m " +
                     shell_quote(testdata_path("stories260K/stories260K.gguf")) + " -p " + shell_quote(g.prompt) +
                     " -n 64 " + flags);
}

TEST(Embed, GeneratesTheGoldenText) {
  const CommandResult r = embed("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
}

TEST(Embed, RunsAModelCallingAPluginsOp) {
  const CommandResult r = embed("--plugin-dir " + shell_quote(TESSERA_ACME_PLUGIN_DIR) + " --arch " +
                                shell_quote(source_path("examples/acme_ops/llama_acme.tsr")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, load_golden().text + "\n");
}

TEST(Embed, ReportsAMissingModelFile) {
  const CommandResult r = run_command(shell_quote(TESSERA_EMBED_EXE) + " -m /nonexistent.gguf -p hi");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("generate_text: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent.gguf"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessera::test
