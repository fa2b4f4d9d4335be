// End-to-end tests of the batching commands: several prompts run together by
// `tessera generate` (same output as each alone, in prompt order, also under a KV
// budget that forces preemption), the KV budget flag, and `bench --concurrency`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }
std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }

const std::vector<std::string> kPrompts = {"Once upon a time", "Tom", "The cat sat on the mat and looked at the bird"};

std::string generate(const std::string& prompts, const std::string& flags) {
  const auto r = run_command(tessera("generate -m " + gguf() + " " + prompts + " -n 20 --temp 0 " + flags));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::string prompt_flags() {
  std::string flags;
  for (const std::string& p : kPrompts) flags += " -p " + shell_quote(p);
  return flags;
}

// What each prompt prints when it runs alone, concatenated in prompt order.
std::string outputs_alone(const std::string& flags = "") {
  std::string all;
  for (const std::string& p : kPrompts) all += generate("-p " + shell_quote(p), flags);
  return all;
}

// The number after "key": in a JSON text, or NaN.
double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return std::nan("");
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

TEST(GenerateBatch, SeveralPromptsPrintWhatEachPrintsAloneInPromptOrder) {
  const std::string together = generate(prompt_flags(), "--kv-block 4 --max-tokens-per-step 8");
  EXPECT_EQ(together, outputs_alone());
  EXPECT_EQ(std::count(together.begin(), together.end(), '\n'), 3) << together;
}

TEST(GenerateBatch, PromptsFileWithJsonGivesOneObjectPerPromptInOrder) {
  const std::string path = temp_path("prompts.txt");
  {
    std::ofstream out(path);
    for (const std::string& p : kPrompts) out << p << "\n";
  }
  const std::string together = generate("--prompts " + shell_quote(path), "--json");
  std::istringstream lines(together);
  std::string line;
  for (const std::string& p : kPrompts) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(line.rfind("{\"prompt\":\"" + p + "\"", 0), 0u) << line;
    const std::string alone = generate("-p " + shell_quote(p), "--json");
    const std::string ids = "\"generated_ids\":";
    EXPECT_EQ(line.substr(line.find(ids), line.find(']', line.find(ids)) - line.find(ids)),
              alone.substr(alone.find(ids), alone.find(']', alone.find(ids)) - alone.find(ids)));
  }
  EXPECT_FALSE(std::getline(lines, line));
}

TEST(GenerateBatch, ATinyKvBudgetPreemptsButChangesNoOutput) {
  // stories260K takes 1,280 bytes a token: 40K is 8 blocks of 4 tokens, the longest
  // request's worth (20 + 12 tokens).
  const auto r = run_command(tessera("generate -m " + gguf() + prompt_flags() +
                                     " -n 12 --temp 0 --kv-block 4 --kv-mem 40K"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string alone;
  for (const std::string& p : kPrompts) {
    alone += run_command(tessera("generate -m " + gguf() + " -p " + shell_quote(p) + " -n 12 --temp 0")).out;
  }
  EXPECT_EQ(r.out, alone);
  EXPECT_NE(r.err.find("KV cache 8 blocks of 4 tokens (40.0 KiB)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(", 0 preemption(s)"), std::string::npos) << "expected preemptions:\n" << r.err;
}

TEST(GenerateBatch, ARequestLargerThanTheKvBudgetIsRefused) {
  const auto r = run_command(tessera("generate -m " + gguf() + " -p 'Once upon a time' -n 64 --kv-mem 20K"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("needs up to 68 tokens of KV cache (prompt 5 + up to 64 new) but the whole budget holds 16 "
                       "tokens"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("raise --kv-mem"), std::string::npos) << r.err;
}

TEST(GenerateBatch, AMalformedKvBudgetIsAUsageError) {
  const auto r = run_command(tessera("generate -m " + gguf() + " -p hi -n 4 --kv-mem 2X"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kv-mem: KV memory '2X': unknown unit 'X'"), std::string::npos) << r.err;
}

TEST(BenchConcurrency, JsonReportsThroughputLatenciesWasteAndHitRate) {
  const auto r = run_command(tessera("bench -m " + gguf() + " --concurrency 4 --requests 8 -p 16 -n 4 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "concurrency"), 4);
  EXPECT_EQ(json_number(r.out, "requests"), 8);
  EXPECT_GT(json_number(r.out, "output_tokens_per_s"), 0);
  EXPECT_NE(r.out.find("\"ttft_ms\":{\"median\":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tpot_ms\":{\"median\":"), std::string::npos) << r.out;
  EXPECT_GE(json_number(r.out, "kv_waste_mean"), 0);
  EXPECT_LT(json_number(r.out, "kv_waste_mean"), 1);
  EXPECT_EQ(json_number(r.out, "prefix_hit_rate"), 0);  // random prompts share nothing
  EXPECT_EQ(json_number(r.out, "mean_batch_sequences"), 4);
}

TEST(BenchConcurrency, ASharedPromptHeadHitsThePrefixCache) {
  const std::string bench = "bench -m " + gguf() + " --concurrency 2 --requests 6 -p 40 -n 2 --shared-prefix 32 --json";
  const auto on = run_command(tessera(bench));
  const auto off = run_command(tessera(bench + " --no-prefix-cache"));
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  // The first two run together and miss; each later one finds 2 blocks of 16 of its 40 tokens.
  EXPECT_NEAR(json_number(on.out, "prefix_hit_rate"), (4.0 * 32) / (6.0 * 40), 1e-5);
  EXPECT_EQ(json_number(off.out, "prefix_hit_rate"), 0);
}

}  // namespace
}  // namespace tessera::test
