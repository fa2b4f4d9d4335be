// End to end on the CUDA backend through the `tessera` executable: greedy stories260K
// gives the golden ids with every op on CUDA (--no-fallback), a long prompt (the cuBLAS
// path) and f16 and int8 KV caches give the CPU's tokens, and every op's output agrees
// with the CPU in verify mode, a mixture-of-experts model's too. Without a device,
// `tessera backends` and `generate --backend cuda` say why.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda_session.h"
#include "support/golden.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::cuda::test {
namespace {

using tessera::test::CommandResult;
using tessera::test::json_ids;
using tessera::test::run_command;
using tessera::test::shell_quote;

std::string tessera_cli(const std::string& args) { return shell_quote(tessera::test::tessera_exe()) + " " + args; }

std::string gguf() { return shell_quote(tessera::test::testdata_path("stories260K/stories260K.gguf")); }

CommandResult generate(const std::string& prompt, int n, const std::string& extra = "") {
  return run_command(tessera_cli("generate -m " + gguf() + " -p " + shell_quote(prompt) + " -n " + std::to_string(n) +
                                 " --temp 0 --json --backend cuda " + extra));
}

class CudaGenerate : public CudaTest {};

TEST_F(CudaGenerate, GreedyStories260KGivesTheGoldenIds) {
  const tessera::test::Golden g = tessera::test::load_golden();
  const CommandResult r = generate(g.prompt, 64, "--no-fallback");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "prompt_ids"), g.prompt_ids);
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
}

TEST_F(CudaGenerate, LongPromptTakesTheCublasPathAndAgreesWithTheCpu) {
  const std::string prompt =
      "Once upon a time, there was a little dog named Max. Max liked to run in the big green park with his friends";
  const CommandResult cpu = run_command(tessera_cli("generate -m " + gguf() + " -p " + shell_quote(prompt) +
                                                    " -n 24 --temp 0 --json --backend cpu"));
  const CommandResult gpu = generate(prompt, 24);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  ASSERT_GT(json_ids(gpu.out, "prompt_ids").size(), 8u);  // more rows than the GEMV takes
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
}

TEST_F(CudaGenerate, HalfAndInt8CachesGiveTheCpusTokens) {
  for (const std::string kv : {"f16", "int8"}) {
    const std::string args = " -p 'Once upon a time' -n 32 --temp 0 --json --kv-dtype " + kv + " --backend ";
    const CommandResult cpu = run_command(tessera_cli("generate -m " + gguf() + args + "cpu"));
    const CommandResult gpu = run_command(tessera_cli("generate -m " + gguf() + args + "cuda"));
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    ASSERT_EQ(gpu.exit_code, 0) << kv << "\n" << gpu.err;
    EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids")) << kv;
  }
}

TEST_F(CudaGenerate, EveryCudaOpAgreesWithTheCpuInVerifyMode) {
  const CommandResult r = generate("Once upon a time", 12, "--verify cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tessera: verify: 12 step(s), "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" op outputs agreed with cpu:0"), std::string::npos) << r.err;
}

// A mixture-of-experts model (models/llama.tsr with 4 experts, 2 per token; random
// q8_0 weights) with every op on CUDA, each output checked against the CPU's.
TEST_F(CudaGenerate, MixtureOfExpertsRunsOnCudaAsOnTheCpu) {
  const std::string model = tessera::test::temp_path("cuda-moe.gguf");
  const std::string llama = shell_quote(tessera::test::source_path("models/llama.tsr"));
  const CommandResult init = run_command(tessera_cli(
      "init --arch " + llama + " --set d_model=64 --set n_layers=2 --set n_heads=4 --set d_ff=96 --set n_vocab=300"
      " --set n_experts=4 --set n_used=2 --dtype q8_0 -o " + shell_quote(model)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string run = "generate -m " + shell_quote(model) + " -p 'hello world, again' -n 6 --temp 0 --json -b ";
  const CommandResult cpu = run_command(tessera_cli(run + "cpu"));
  const CommandResult gpu = run_command(tessera_cli(run + "cuda --no-fallback --verify cpu"));
  std::remove(model.c_str());
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_NE(gpu.err.find(" op outputs agreed with cpu:0"), std::string::npos) << gpu.err;
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
}

class CudaWithoutADevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (session().device) GTEST_SKIP() << "this machine has a CUDA device";
  }
};

TEST_F(CudaWithoutADevice, BackendsListsThePluginAndTheReason) {
  const CommandResult r = run_command(tessera_cli("backends"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("plugin cuda 0.1.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("devices: none (no CUDA device: "), std::string::npos) << r.out;
}

TEST_F(CudaWithoutADevice, GenerateSaysWhyTheBackendIsUnusable) {
  const CommandResult r = generate("hi", 4);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("backend 'cuda'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has no usable device: no CUDA device: "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessera::cuda::test
