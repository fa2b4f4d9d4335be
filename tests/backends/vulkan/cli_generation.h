// End-to-end checks through the `tessera` executable: a model generated with every op
// on its Vulkan kernel and each output verified against the CPU's.
#pragma once

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::vulkan::test {

// `tessera ARGS`, as a shell command line.
inline std::string tessera_cli(const std::string& args) {
  return tessera::test::shell_quote(tessera::test::tessera_exe()) + " " + args;
}

// Runs `generate GENERATE_ARGS --backend cpu`, then on vulkan with --no-fallback and
// --verify cpu: both succeed, every op output agrees, the tokens are the CPU's, and the
// validation layer said nothing.
inline void expect_vulkan_generation_matches_cpu(const std::string& generate_args) {
  using tessera::test::CommandResult;
  const std::string run = "generate " + generate_args + " --json --backend ";
  const CommandResult cpu = tessera::test::run_command(tessera_cli(run + "cpu"));
  const CommandResult gpu = tessera::test::run_command(tessera_cli(run + "vulkan --no-fallback --verify cpu"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_THAT(gpu.err, ::testing::HasSubstr("op outputs agreed with cpu:0"));
  EXPECT_EQ(tessera::test::json_ids(gpu.out, "generated_ids"), tessera::test::json_ids(cpu.out, "generated_ids"));
  EXPECT_EQ(gpu.err.find("tessera vulkan validation:"), std::string::npos) << gpu.err;
}

}  // namespace tessera::vulkan::test
