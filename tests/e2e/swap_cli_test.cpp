// `tessera generate --swap-at`: a generation that moves between devices mid-run prints
// the same text as one that never moved (greedy and seeded, several prompts), logs
// each move with its time, and refuses malformed plans and unknown backends before
// anything runs. The moves between CPU devices run here; CPU <-> Vulkan ones run in
// the Vulkan tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }
std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }

CommandResult generate(const std::string& flags) {
  return run_command(tessera("generate -m " + gguf() + " -p 'Once upon a time' -p 'The cat' -n 40 " + flags));
}

TEST(GenerateSwap, GreedyTextIsTheSameWithMovesInTheMiddle) {
  const CommandResult stayed = generate("--temp 0");
  // "cpu:0" and "cpu" name the same device but open it again: a real move each time.
  // Two prompts: the count goes up by two a step, so the points are even.
  const CommandResult moved = generate("--temp 0 --swap-at 6:cpu:0,20:cpu,30:cpu:0 --verbose");
  ASSERT_EQ(stayed.exit_code, 0) << stayed.err;
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(moved.out, stayed.out);
  EXPECT_THAT(moved.err, HasSubstr("tessera: moved from cpu:0 to cpu:0 after 6 tokens in "));
  EXPECT_THAT(moved.err, HasSubstr("after 20 tokens"));
  EXPECT_THAT(moved.err, HasSubstr("after 30 tokens"));
  EXPECT_THAT(moved.err, HasSubstr(": 2 running and 0 waiting request(s) (0 preempted), 2 KV block(s) (40.0 KiB) copied in "));
  EXPECT_THAT(moved.err, HasSubstr("tessera: moved 3 time(s), ending on cpu:0"));
}

TEST(GenerateSwap, SeededSamplingIsTheSameWithAMove) {
  const std::string sampling = "--temp 0.9 --top-k 30 --repeat-penalty 1.1 --seed 77 ";
  const CommandResult stayed = generate(sampling);
  const CommandResult moved = generate(sampling + "--swap-at 12:cpu:0 -v");
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(moved.out, stayed.out);
  EXPECT_THAT(moved.err, HasSubstr("moved from cpu:0 to cpu:0 after 12 tokens"));
}

TEST(GenerateSwap, AMoveToTheBackendItIsOnDoesNothing) {
  const CommandResult r = generate("--temp 0 --swap-at 4:cpu -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("moved"), std::string::npos) << r.err;
}

TEST(GenerateSwap, MovesAreCountedWithoutVerbose) {
  const CommandResult r = generate("--temp 0 --swap-at 4:cpu:0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("moved from"), std::string::npos) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tessera: moved 1 time(s), ending on cpu:0"));
}

// 4 blocks of 16 tokens on the target: each prompt with its 40 tokens takes 3, so
// the two together are preempted in turn there, and the text stays the same.
TEST(GenerateSwap, ASmallerCacheOnTheTargetPreemptsAndTheTextStaysTheSame) {
  const CommandResult stayed = generate("--temp 0");
  const CommandResult moved = generate("--temp 0 --swap-at 10:cpu:0 --swap-kv-mem 80K -v");
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(moved.out, stayed.out);
  EXPECT_THAT(moved.err, HasSubstr("copied in "));
  EXPECT_THAT(moved.err, HasSubstr(" into a cache of 4 f32, "));
  EXPECT_EQ(moved.err.find(" 0 preemption(s)"), std::string::npos) << moved.err;
}

// The rounded cache may change a near tie after the move, so only the run is checked
// here (the conversion has its own tests).
TEST(GenerateSwap, TheCacheCanChangeDtypeOnTheWay) {
  for (const std::string dtype : {"f16", "int8"}) {
    const CommandResult moved = generate("--temp 0 --swap-at 10:cpu:0 --swap-kv-dtype " + dtype + " -v");
    ASSERT_EQ(moved.exit_code, 0) << moved.err;
    EXPECT_THAT(moved.err, HasSubstr(dtype == "f16" ? " into a cache of 6 f16, " : " into a cache of 6 q8_0, "));
    EXPECT_THAT(moved.err, HasSubstr("generated 40 tokens"));
  }
  const CommandResult bad = generate("--temp 0 --swap-at 10:cpu:0 --swap-kv-dtype q4_0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--swap-kv-dtype: --kv-dtype must be f32, f16 or int8, got 'q4_0'"));
}

TEST(GenerateSwap, ABadTargetBudgetIsAUsageError) {
  const CommandResult r = generate("--temp 0 --swap-at 10:cpu:0 --swap-kv-mem lots");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--swap-kv-mem: "));
}

TEST(GenerateSwap, MalformedPlansAreUsageErrors) {
  for (const std::string plan : {"vulkan", "x:cpu", "5:", ":cpu", "-1:cpu", "8:cpu,4:cpu:0", "8:cpu,,9:cpu"}) {
    const CommandResult r = generate("--temp 0 --swap-at " + shell_quote(plan));
    EXPECT_EQ(r.exit_code, 2) << plan << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("--swap-at")) << plan;
    EXPECT_TRUE(r.out.empty()) << plan;
  }
}

TEST(GenerateSwap, AnUnknownTargetFailsBeforeAnythingRuns) {
  const CommandResult r = generate("--temp 0 --swap-at 8:nosuch");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--swap-at 8:nosuch: no backend named 'nosuch'"));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace tessera::test
