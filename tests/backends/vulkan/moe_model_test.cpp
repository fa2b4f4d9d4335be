// End to end on the Vulkan backend, mixture-of-experts models: models/llama.tsr with 4
// experts, 2 per token (Mixtral's form), and models/qwen2_moe.tsr (the same plus a shared
// expert behind a sigmoid gate), random q8_0 weights (`tessera init`), then
// `tessera generate` with every op on its Vulkan kernel (--no-fallback), each output
// checked against the CPU's (--verify cpu), giving the CPU's tokens.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_generation.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using tessera::test::CommandResult;
using tessera::test::run_command;
using tessera::test::shell_quote;

class VulkanMoeModel : public VulkanTest {};

TEST_F(VulkanMoeModel, RunsTheExpertsOnVulkanAsTheCpuDoes) {
  const std::string model = tessera::test::temp_path("moe.gguf");
  const std::string llama = shell_quote(tessera::test::source_path("models/llama.tsr"));
  const CommandResult init = run_command(tessera_cli(
      "init --arch " + llama + " --set d_model=64 --set n_layers=2 --set n_heads=4 --set d_ff=96 --set n_vocab=300"
      " --set n_experts=4 --set n_used=2 --dtype q8_0 -o " + shell_quote(model)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  expect_vulkan_generation_matches_cpu("-m " + shell_quote(model) + " -p 'hello world, again' -n 6 --temp 0");
  std::remove(model.c_str());
}

TEST_F(VulkanMoeModel, RunsASharedExpertBehindItsGateAsTheCpuDoes) {
  const std::string model = tessera::test::temp_path("qwen2-moe.gguf");
  const std::string arch = shell_quote(tessera::test::source_path("models/qwen2_moe.tsr"));
  const CommandResult init = run_command(tessera_cli(
      "init --arch " + arch + " --set d_model=64 --set n_layers=2 --set n_heads=4 --set n_vocab=300"
      " --set d_ff=96 --set n_experts=4 --set n_used=2 --set d_expert=32 --set d_shared=64 --dtype q8_0 -o " +
      shell_quote(model)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  expect_vulkan_generation_matches_cpu("-m " + shell_quote(model) + " -p 'hello world, again' -n 6 --temp 0 --ignore-eos");
  std::remove(model.c_str());
}

}  // namespace
}  // namespace tessera::vulkan::test
