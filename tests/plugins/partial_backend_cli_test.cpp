// Per-op fallback with a real second backend: "partial" (its own devices and buffers,
// ADD and SWIGLU f32 only) runs those nodes and the CPU the rest; the greedy ids are
// the golden ones, the placement says so, verify mode agrees, a run moves onto it
// mid-generation, and --no-fallback refuses it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/golden.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

std::string tessera(const std::string& args) {
  return shell_quote(tessera_exe()) + " " + args + " --plugin-dir " + shell_quote(TESSERA_TEST_BACKEND_DIR);
}
std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }

std::vector<int32_t> generated_ids(const std::string& json) { return json_ids(json, "generated_ids"); }

CommandResult generate(const std::string& flags, int n = 64) {
  const Golden g = load_golden();
  return run_command(tessera("generate -m " + gguf() + " -p " + shell_quote(g.prompt) + " -n " + std::to_string(n) +
                             " --temp 0 --json " + flags));
}

TEST(PartialBackend, RunsItsTwoOpsAndTheCpuTheRestWithTheGoldenIds) {
  const CommandResult r = generate("-b partial");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(generated_ids(r.out), load_golden().generated_ids);
  EXPECT_THAT(r.err, HasSubstr("tessera: partial:0 has no kernel for get_rows f32 (2), rms_norm f32 (11), matmul f32 (36), "
                               "rope f32 (10), kv_write f32 (10), attention f32 (5): those 74 node(s) run on cpu:0"));
}

TEST(PartialBackend, CheckShowsTheSplit) {
  const CommandResult r = run_command(tessera("check -m " + gguf() + " -b partial"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("placement on partial:0:\n  partial:0: 15 node(s)\n    add f32: 10 node(s)\n"
                               "    swiglu f32: 5 node(s)\n  cpu:0 (fallback): "));
}

TEST(PartialBackend, VerifyModeAgreesWithTheCpu) {
  const CommandResult r = generate("-b partial --verify cpu", 16);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(" op outputs agreed with cpu:0"));
}

TEST(PartialBackend, ARunMovesOntoItAndBack) {
  const CommandResult r = generate("-b cpu --swap-at 10:partial,30:cpu,50:partial");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(generated_ids(r.out), load_golden().generated_ids);
  EXPECT_THAT(r.err, HasSubstr("tessera: moved 3 time(s), ending on partial:0"));
}

TEST(PartialBackend, NoFallbackRefusesIt) {
  const CommandResult r = generate("-b partial --no-fallback");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("backend 'partial' has no kernel for get_rows with f32 data, needed by node 0"));
}

}  // namespace
}  // namespace tessera::test
