// Comparisons (< <= > >= == !=) and logic (&& || !) on numbers: their 1 or 0 values,
// C's precedence, && and || evaluating their right operand only when needed, and their
// use in hyper-parameters, if() conditions and attributes.
#include <gtest/gtest.h>

#include "graph_query.h"

namespace tessera::test {
namespace {


double value(const std::string& expression) { return evaluate("r = " + expression, "r").value; }

TEST(Comparisons, AreOneWhenTrueAndZeroWhenFalse) {
  EXPECT_EQ(value("d < v"), 1);
  EXPECT_EQ(value("d > v"), 0);
  EXPECT_EQ(value("d <= 4"), 1);
  EXPECT_EQ(value("d >= 5"), 0);
  EXPECT_EQ(value("d == 4"), 1);
  EXPECT_EQ(value("d != 4"), 0);
}

TEST(Comparisons, GiveIntegers) {
  const HParam h = evaluate("r = 0.5 < 1.5", "r");
  EXPECT_EQ(h.value, 1);
  EXPECT_TRUE(h.is_integer);
}

TEST(Comparisons, OfIntegersAreExactBeyondDoublePrecision) {
  // 2^53 + 1 and 2^53 are the same double; as integers they differ.
  EXPECT_EQ(value("9007199254740993 == 9007199254740992"), 0);
  EXPECT_EQ(value("9007199254740993 > 9007199254740992"), 1);
}

TEST(Comparisons, OfAnIntegerAndAFloatCompareTheValues) {
  EXPECT_EQ(value("4 == 4.0"), 1);
  EXPECT_EQ(value("d < 4.5"), 1);
}

TEST(Comparisons, BindLooserThanArithmetic) {
  EXPECT_EQ(value("d + 1 == 5"), 1);  // (d + 1) == 5
  EXPECT_EQ(value("7 % 4 == 3"), 1);  // (7 % 4) == 3
  EXPECT_EQ(value("-d < 0"), 1);
}

TEST(Comparisons, RelationalBindTighterThanEquality) {
  EXPECT_EQ(value("1 == d < v"), 1);  // 1 == (d < v), as in C
  EXPECT_EQ(value("(1 == d) < v"), 1);
}

TEST(Comparisons, MayCompareParenthesisedComparisons) {
  EXPECT_EQ(value("(d < v) == (v > d)"), 1);
  EXPECT_EQ(value("(d < v) < 1"), 0);
}

TEST(Logic, AndOrAndNotOfNumbers) {
  EXPECT_EQ(value("2 && 0.5"), 1);
  EXPECT_EQ(value("d && 0"), 0);
  EXPECT_EQ(value("0 || 0.0"), 0);
  EXPECT_EQ(value("0 || -3"), 1);
  EXPECT_EQ(value("!0"), 1);
  EXPECT_EQ(value("!d"), 0);
  EXPECT_EQ(value("!!d"), 1);
  EXPECT_TRUE(evaluate("r = !0.0", "r").is_integer);
}

TEST(Logic, AndBindsTighterThanOr) {
  EXPECT_EQ(value("1 || 0 && 0"), 1);    // 1 || (0 && 0)
  EXPECT_EQ(value("(1 || 0) && 0"), 0);
}

TEST(Logic, NotBindsTighterThanComparisons) {
  EXPECT_EQ(value("!d == 0"), 1);   // (!d) == 0
  EXPECT_EQ(value("!(d == 0)"), 1);
  EXPECT_EQ(value("-!0"), -1);
}

TEST(Logic, EqualityBindsTighterThanAnd) {
  EXPECT_EQ(value("d == 4 && v == 8"), 1);
  EXPECT_EQ(value("d == 3 || v != 8 || d % 2 == 0"), 1);
}

TEST(Logic, AndDoesNotEvaluateItsRightOperandWhenTheLeftIsZero) {
  EXPECT_EQ(value("d == 3 && v / 0 > 1"), 0);  // the division by zero is never evaluated
}

TEST(Logic, OrDoesNotEvaluateItsRightOperandWhenTheLeftIsNotZero) {
  EXPECT_EQ(value("d == 4 || v / 0 > 1"), 1);
  // meta() without a file and without a default fails only when it is read.
  EXPECT_EQ(value("1 || meta(\"tiny.missing\")"), 1);
}

TEST(Logic, EvaluatesTheRightOperandWhenNeeded) {
  try {
    value("d == 4 && v / 0 > 1");
    FAIL() << "the division by zero was not evaluated";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(), "division by zero in 'v / 0'");
  }
}

TEST(Logic, ConditionsOfIf) {
  EXPECT_EQ(value("if(d > 2 && v > 2, 10, 20)"), 10);
  EXPECT_EQ(value("if(!(d > 2), 10, 20)"), 20);
}

// Layer patterns written as conditions: a window on every layer but each fourth.
TEST(Logic, AttributesPerLayer) {
  const CompiledModel m = compile_text(R"(model tiny
hparams { d = 8  v = 16  n = 8 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb)
  for i in 0 .. n {
    x = attention(x, x, x, heads: 2, window: if(i % 4 == 3 || i == 0, 0, 64), softcap: (i >= 6) * 30.0)
  }
  logits = linear(outputs(x), emb)
}
)");
  std::vector<int32_t> windows;
  std::vector<float> caps;
  for (const GraphNode* n : nodes_of(m.graph, OpKind::Attention)) {
    windows.push_back(std::get<AttentionParams>(n->params).window);
    caps.push_back(std::get<AttentionParams>(n->params).softcap);
  }
  EXPECT_EQ(windows, (std::vector<int32_t>{0, 64, 64, 0, 64, 64, 64, 0}));
  EXPECT_EQ(caps, (std::vector<float>{0, 0, 0, 0, 0, 0, 30, 30}));
}

TEST(Logic, ChoiceAttributesByCondition) {
  const CompiledModel m = compile_text(R"(model tiny
hparams { d = 8  v = 16 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb)
  for i in 0 .. 3 { x = rope(x, heads: 2, pairing: if(i != 1 && !hf, interleaved, neox)) }
  logits = linear(outputs(x), emb)
}
)");
  std::vector<int32_t> pairings;
  for (const GraphNode* n : nodes_of(m.graph, OpKind::Rope)) pairings.push_back(std::get<RopeParams>(n->params).pairing);
  EXPECT_EQ(pairings, (std::vector<int32_t>{TSR_ROPE_INTERLEAVED, TSR_ROPE_NEOX, TSR_ROPE_INTERLEAVED}));
}

}  // namespace
}  // namespace tessera::test
