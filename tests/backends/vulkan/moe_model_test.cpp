// End to end on the Vulkan backend, a mixture-of-experts model: models/llama.tsr with 4
// experts, 2 per token (Mixtral's form), random q8_0 weights (`tessera init`), then
// `tessera generate` with every op on its Vulkan kernel (--no-fallback), each output
// checked against the CPU's (--verify cpu), giving the CPU's tokens.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using ::testing::HasSubstr;
using tessera::test::CommandResult;
using tessera::test::run_command;
using tessera::test::shell_quote;

std::string tessera_cli(const std::string& args) { return shell_quote(tessera::test::tessera_exe()) + " " + args; }

class VulkanMoeModel : public VulkanTest {};

TEST_F(VulkanMoeModel, RunsTheExpertsOnVulkanAsTheCpuDoes) {
  const std::string model = tessera::test::temp_path("moe.gguf");
  const std::string llama = shell_quote(tessera::test::source_path("models/llama.tsr"));
  const CommandResult init = run_command(tessera_cli(
      "init --arch " + llama + " --set d_model=64 --set n_layers=2 --set n_heads=4 --set d_ff=96 --set n_vocab=300"
      " --set n_experts=4 --set n_used=2 --dtype q8_0 -o " + shell_quote(model)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string run = "generate -m " + shell_quote(model) + " -p 'hello world, again' -n 6 --temp 0 --json --backend ";
  const CommandResult cpu = run_command(tessera_cli(run + "cpu"));
  const CommandResult gpu = run_command(tessera_cli(run + "vulkan --no-fallback --verify cpu"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_THAT(gpu.err, HasSubstr("op outputs agreed with cpu:0"));
  EXPECT_EQ(tessera::test::json_ids(gpu.out, "generated_ids"), tessera::test::json_ids(cpu.out, "generated_ids"));
  EXPECT_EQ(gpu.err.find("tessera vulkan validation:"), std::string::npos) << gpu.err;
  std::remove(model.c_str());
}

}  // namespace
}  // namespace tessera::vulkan::test
