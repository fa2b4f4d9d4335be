// End to end on the Vulkan backend: `tessera generate --backend vulkan` on stories260K
// gives the golden greedy ids, agrees with the CPU backend on longer prompts (the tiled
// prefill path), on a context long enough for split-KV decode, and with f16 and int8
// (q8_0) KV caches, moved between the CPU and Vulkan mid-run (--swap-at), with the
// ops it lacks run on the CPU (per-op fallback), and says why when there is no
// Vulkan driver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/vulkan/ops/attention_path.h"
#include "support/golden.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/testdata.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using tessera::test::CommandResult;
using tessera::test::run_command;
using tessera::test::shell_quote;

std::string tessera_cli(const std::string& args) {
  return shell_quote(tessera::test::tessera_exe()) + " " + args;
}

std::string gguf() { return shell_quote(tessera::test::testdata_path("stories260K/stories260K.gguf")); }

using tessera::test::json_ids;
using tessera::test::json_text;

CommandResult generate(const std::string& backend, const std::string& prompt, int n, const std::string& extra = "") {
  return run_command(tessera_cli("generate -m " + gguf() + " -p " + shell_quote(prompt) + " -n " + std::to_string(n) +
                                 " --temp 0 --json --backend " + backend + " " + extra));
}

class VulkanGenerate : public VulkanTest {};

TEST_F(VulkanGenerate, GreedyStories260KGivesTheGoldenIds) {
  const tessera::test::Golden g = tessera::test::load_golden();
  const CommandResult r = generate("vulkan", g.prompt, 64);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "prompt_ids"), g.prompt_ids);
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
  EXPECT_EQ(r.err.find("tessera vulkan validation:"), std::string::npos) << r.err;
}

TEST_F(VulkanGenerate, LongPromptTakesTheTiledPathAndAgreesWithTheCpu) {
  const std::string prompt =
      "Once upon a time, there was a little dog named Max. Max liked to run in the big green park with his friends";
  const CommandResult cpu = generate("cpu", prompt, 24);
  const CommandResult gpu = generate("vulkan", prompt, 24);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  ASSERT_GT(json_ids(gpu.out, "prompt_ids").size(), 8u);  // more than matmul_vec takes
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
}

// stories260K stretched to a 1024-token context: a 953-token prompt makes every decode
// step's block tables 60 blocks of 16, so attention runs split-KV (8 heads, one token).
TEST_F(VulkanGenerate, LongContextDecodeTakesSplitKvAndAgreesWithTheCpu) {
  std::string prompt;
  for (int i = 0; i < 28; ++i) {
    prompt += "Once upon a time, there was a little girl named Lily who loved to play in the park with her big red ball. ";
  }
  const std::string extra = "--set n_ctx=1024 -c 1024";
  const CommandResult cpu = generate("cpu", prompt, 24, extra);
  const CommandResult gpu = generate("vulkan", prompt, 24, extra);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  const auto prompt_tokens = static_cast<int64_t>(json_ids(gpu.out, "prompt_ids").size());
  ASSERT_GT(prompt_tokens, 900);
  const int64_t kv_blocks = (prompt_tokens + 1 + 15) / 16;  // the first decode step
  ASSERT_GT(attention_splits(1, 8, kv_blocks, 16), 1);
  ASSERT_EQ(json_ids(gpu.out, "generated_ids").size(), 24u);
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
  EXPECT_EQ(gpu.err.find("tessera vulkan validation:"), std::string::npos) << gpu.err;
}

TEST_F(VulkanGenerate, HalfPrecisionCacheAgreesWithTheCpu) {
  const CommandResult cpu = generate("cpu", "Once upon a time", 48, "--kv-dtype f16");
  const CommandResult gpu = generate("vulkan", "Once upon a time", 48, "--kv-dtype f16");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
}

// The int8 cache is written and read by the Vulkan q8_0 kernels (a missing kernel fails
// the run): the same quantisation as on the CPU gives the same greedy text.
TEST_F(VulkanGenerate, Int8CacheGivesTheSameTextAsTheCpu) {
  const CommandResult cpu = generate("cpu", "Once upon a time", 48, "--kv-dtype int8");
  const CommandResult gpu = generate("vulkan", "Once upon a time", 48, "--kv-dtype int8");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  ASSERT_EQ(json_ids(gpu.out, "generated_ids").size(), 48u) << gpu.out;
  EXPECT_EQ(json_ids(gpu.out, "generated_ids"), json_ids(cpu.out, "generated_ids"));
  EXPECT_EQ(json_text(gpu.out, "text"), json_text(cpu.out, "text"));
  EXPECT_NE(json_text(gpu.out, "text"), "");
  EXPECT_EQ(gpu.err.find("tessera vulkan validation:"), std::string::npos) << gpu.err;
}

// --swap-at moves the run between the CPU and Vulkan backends (Engine::migrate): the
// KV rows written by one backend's kernels are read by the other's.
TEST_F(VulkanGenerate, GreedyRunMovedBetweenCpuAndVulkanGivesTheGoldenIds) {
  const tessera::test::Golden g = tessera::test::load_golden();
  const CommandResult r = generate("cpu", g.prompt, 64, "--swap-at 8:vulkan,24:cpu,40:vulkan --verbose");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
  EXPECT_NE(r.err.find("moved from cpu:0 to vulkan:0 after 8 tokens"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("moved from vulkan:0 to cpu:0 after 24 tokens"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("moved from cpu:0 to vulkan:0 after 40 tokens"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("tessera vulkan validation:"), std::string::npos) << r.err;
}

// The second prompt is still being prefilled in chunks of 8 tokens when the first has
// generated 2: the move to the CPU comes in the middle of its prefill.
TEST_F(VulkanGenerate, MoveToTheCpuInTheMiddleOfAChunkedPrefill) {
  const std::string prompts = "-p 'Once upon a time' -p " +
                              shell_quote("Lily and Ben went to the park. They saw a big red ball and a small dog "
                                          "who wanted to play with them all day long");
  const std::string common = " -n 24 --temp 0 --ignore-eos --max-tokens-per-step 8 --backend ";
  const CommandResult stayed = run_command(tessera_cli("generate -m " + gguf() + " " + prompts + common + "vulkan"));
  const CommandResult moved =
      run_command(tessera_cli("generate -m " + gguf() + " " + prompts + common + "vulkan --swap-at 2:cpu -v"));
  ASSERT_EQ(stayed.exit_code, 0) << stayed.err;
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(moved.out, stayed.out);
  EXPECT_NE(moved.err.find("moved from vulkan:0 to cpu:0 after 2 tokens"), std::string::npos) << moved.err;
  EXPECT_NE(moved.err.find(": 2 running and 0 waiting request(s)"), std::string::npos) << moved.err;
}

// A KV cache bigger than the Vulkan device's memory: the move is refused before anything
// is allocated there, with the sizes, and the run finishes on the CPU as if asked to stay.
TEST_F(VulkanGenerate, MoveToADeviceTooSmallIsRefusedAndTheRunGoesOn) {
  const uint64_t memory = tessera::vulkan::test::session().device->info().memory_bytes;
  ASSERT_GT(memory, 0u);
  const std::string kv_mem = " --kv-mem " + std::to_string(memory + (uint64_t{256} << 20));
  const CommandResult stayed = generate("cpu", "Once upon a time", 24, kv_mem);
  const CommandResult refused = generate("cpu", "Once upon a time", 24, kv_mem + " --swap-at 8:vulkan");
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_EQ(json_ids(refused.out, "generated_ids"), json_ids(stayed.out, "generated_ids"));
  EXPECT_NE(refused.err.find("tessera: warning: --swap-at 8:vulkan refused: cannot move the run from cpu:0 to "
                             "vulkan:0: it needs "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("(the run stays on cpu:0)"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("moved from"), std::string::npos) << refused.err;
}

// Per-op fallback: kernels hidden from the Vulkan backend by the test switch run on the
// CPU (a layer's KV_WRITE beside an ATTENTION that moved), with the golden ids.
CommandResult lacking(const std::string& hidden, const std::string& args) {
  return run_command("TESSERA_HIDE_KERNELS=" + hidden + " " + tessera_cli(args));
}

TEST_F(VulkanGenerate, KernelsTheBackendLacksRunOnTheCpuWithTheGoldenIds) {
  const tessera::test::Golden g = tessera::test::load_golden();
  const std::string args = "generate -m " + gguf() + " -p " + shell_quote(g.prompt) + " -n 64 --temp 0 --json -b vulkan";
  for (const std::string hidden : {"vulkan:rms_norm:f32,vulkan:swiglu:f32", "vulkan:attention:f32"}) {
    const CommandResult r = lacking(hidden, args);
    ASSERT_EQ(r.exit_code, 0) << hidden << "\n" << r.err;
    EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids) << hidden;
    EXPECT_NE(r.err.find("tessera: vulkan:0 has no kernel for "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("tessera vulkan validation:"), std::string::npos) << r.err;
  }
  const CommandResult attention = lacking("vulkan:attention:f32", args);
  EXPECT_NE(attention.err.find("has no kernel for attention f32 (5); beside their KV cache: kv_write f32 (10): "
                               "those 15 node(s) run on cpu:0"),
            std::string::npos)
      << attention.err;
}

TEST_F(VulkanGenerate, NoFallbackRefusesWhatTheBackendLacks) {
  const CommandResult r = lacking("vulkan:swiglu:f32", "generate -m " + gguf() + " -p hi -n 4 -b vulkan --no-fallback");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("backend 'vulkan' has no kernel for swiglu with f32 data, needed by node"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(VulkanGenerate, CheckPrintsWhereEachOpRuns) {
  const CommandResult r = lacking("vulkan:swiglu:f32", "check -m " + gguf() + " -b vulkan");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("placement on vulkan:0:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  cpu:0 (fallback): 5 node(s)\n    swiglu f32: 5 node(s)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  11 segment(s) a step; 10.1 KiB copied between the devices per token"), std::string::npos)
      << r.out;
  const CommandResult complete = run_command(tessera_cli("check -m " + gguf() + " -b vulkan"));
  ASSERT_EQ(complete.exit_code, 0) << complete.err;
  EXPECT_NE(complete.out.find("  1 segment(s) a step; 0 B copied"), std::string::npos) << complete.out;
  EXPECT_EQ(complete.out.find("(fallback)"), std::string::npos) << complete.out;
}

TEST_F(VulkanGenerate, AMoveToAVulkanThatLacksAKernelTakesTheFallbackAlong) {
  const tessera::test::Golden g = tessera::test::load_golden();
  const CommandResult r = lacking("vulkan:rope:f32", "generate -m " + gguf() + " -p " + shell_quote(g.prompt) +
                                                         " -n 64 --temp 0 --json -b cpu --swap-at 16:vulkan,40:cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
  EXPECT_NE(r.err.find("tessera: vulkan:0 has no kernel for rope f32 (10)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tessera: moved 2 time(s), ending on cpu:0"), std::string::npos) << r.err;
}

// Verify mode: every Vulkan op checked against the CPU's on the same inputs, f32 and
// q8_0 KV caches, and with an op on the fallback.
TEST_F(VulkanGenerate, EveryVulkanOpAgreesWithTheCpuInVerifyMode) {
  for (const std::string extra : {"", "--kv-dtype int8"}) {
    const CommandResult r = generate("vulkan", "Once upon a time", 12, "--verify cpu " + extra);
    ASSERT_EQ(r.exit_code, 0) << extra << "\n" << r.err;
    EXPECT_NE(r.err.find("tessera: verify: 12 step(s), "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" op outputs agreed with cpu:0"), std::string::npos) << r.err;
  }
  const CommandResult r = lacking("vulkan:rope:f32", "generate -m " + gguf() +
                                                         " -p 'Once upon a time' -n 12 --temp 0 -b vulkan --verify cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(" op outputs agreed with cpu:0"), std::string::npos) << r.err;
}

// Runs with a driver list that names no driver, as on a machine without a Vulkan driver.
CommandResult without_a_driver(const std::string& args) {
  return run_command("VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json " +
                     tessera_cli(args));
}

TEST(VulkanWithoutADriver, BackendsListsNoDeviceAndTheReason) {
  const CommandResult r = without_a_driver("backends");
  EXPECT_NE(r.out.find("plugin vulkan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("devices: none (no Vulkan driver"), std::string::npos) << r.out;
}

TEST(VulkanWithoutADriver, GenerateSaysWhyTheBackendIsUnusable) {
  const CommandResult r = without_a_driver("generate -m " + gguf() + " -p hi -n 4 --backend vulkan");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("backend 'vulkan'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has no usable device: no Vulkan driver"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessera::vulkan::test
