// Hostile nesting is a diagnostic, not a stack overflow: 30,000 parentheses, unary
// minus signs, nested calls or loops, a sum of 20,000 terms in hparams or in forward,
// and a chain of blocks each calling the one before, each refused at the place the
// limit is passed, quickly; what real models write stays far inside the limits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "dsl/model_definition.h"
#include "dsl/nesting_limits.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string with_hparam(const std::string& value) {
  return "model tiny\nhparams {\n  d = " + value + "\n}\nweights {\n  emb [8, 4] = \"emb\"\n}\n"
         "forward {\n  logits = linear(outputs(embed(emb)), emb)\n}\n";
}

std::string with_forward(const std::string& statements) {
  return "model tiny\nweights {\n  emb [8, 4] = \"emb\"\n}\nforward {\n" + statements +
         "  logits = linear(outputs(x), emb)\n}\n";
}

std::string diagnose(const std::string& source) {
  try {
    dsl::compile_model(*dsl::parse_model(source, "deep.tsr"), dsl::CompileOptions{});
  } catch (const dsl::DslError& e) {
    return e.what();
  }
  return "accepted";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(NestingLimit, ThirtyThousandParenthesesStopAtTheLimit) {
  const std::string text = with_hparam(repeat("(", 30000) + "1" + repeat(")", 30000));
  // The 201st '(' is column 7 + 200 of line 3.
  EXPECT_THAT(diagnose(text), StartsWith("deep.tsr:3:207: error: expression nested deeper than 200 levels\n"));
}

TEST(NestingLimit, UnaryMinusChainsAndNotChainsStopAtTheLimit) {
  EXPECT_THAT(diagnose(with_hparam(repeat("-", 30000) + "1")),
              StartsWith("deep.tsr:3:207: error: expression nested deeper than 200 levels"));
  EXPECT_THAT(diagnose(with_hparam(repeat("!", 30000) + "1")),
              StartsWith("deep.tsr:3:207: error: expression nested deeper than 200 levels"));
}

TEST(NestingLimit, NestedCallsStopAtTheLimit) {
  EXPECT_THAT(diagnose(with_hparam(repeat("sqrt(", 20000) + "4" + repeat(")", 20000))),
              HasSubstr("error: expression nested deeper than 200 levels"));
}

TEST(NestingLimit, LongSumInHparamsStopsAtTheDepthLimit) {
  EXPECT_THAT(diagnose(with_hparam("0" + repeat("+0", 14000))),
              HasSubstr("error: expression nested deeper than 1000 levels"));
}

TEST(NestingLimit, LongSumOfTensorsInForwardStopsAtTheDepthLimit) {
  EXPECT_THAT(diagnose(with_forward("  x = embed(emb)\n  x = x" + repeat(" + x", 21500) + "\n")),
              HasSubstr("error: expression nested deeper than 1000 levels"));
}

TEST(NestingLimit, NestedLoopsStopAtTheLimit) {
  std::string loops;
  for (int i = 0; i < 300; ++i) loops += "for i" + std::to_string(i) + " in 0 .. 1 { ";
  loops += "x = embed(emb) ";
  loops += repeat("} ", 300);
  EXPECT_THAT(diagnose(with_forward("  " + loops + "\n  x = embed(emb)\n")),
              HasSubstr("error: expression nested deeper than 200 levels"));
}

TEST(NestingLimit, ChainOfBlocksStopsAtTheLimit) {
  std::string blocks = "block b0(t) {\n  return t\n}\n";
  for (int i = 1; i <= 100; ++i) {
    blocks += "block b" + std::to_string(i) + "(t) {\n  return b" + std::to_string(i - 1) + "(t)\n}\n";
  }
  const std::string text = "model tiny\nweights {\n  emb [8, 4] = \"emb\"\n}\n" + blocks +
                           "forward {\n  logits = linear(outputs(b100(embed(emb))), emb)\n}\n";
  EXPECT_THAT(diagnose(text), HasSubstr("error: blocks call one another more than 64 deep"));
}

TEST(NestingLimit, DeepButReasonableExpressionsAreFine) {
  EXPECT_EQ(diagnose(with_hparam(repeat("(", 150) + "4" + repeat(")", 150))), "accepted");
  EXPECT_EQ(diagnose(with_hparam("4" + repeat("+0", 900))), "accepted");
}

}  // namespace
}  // namespace tessera::test
