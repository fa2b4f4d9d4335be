// The scalar functions pow(), round() and if(), the '%' operator and the predefined
// number hf: their values, whether they stay integers, and if() choosing attributes.
#include <gtest/gtest.h>

#include "graph_query.h"

namespace tessera::test {
namespace {


TEST(ScalarPow, OfIntegersWithAnExponentOfZeroOrMoreIsAnInteger) {
  const HParam h = evaluate("p = pow(2, 10)", "p");
  EXPECT_EQ(h.value, 1024);
  EXPECT_TRUE(h.is_integer);
  EXPECT_EQ(evaluate("p = pow(d, 0)", "p").value, 1);
}

TEST(ScalarPow, WithANegativeExponentIsAFloat) {
  const HParam h = evaluate("p = pow(2, -2)", "p");
  EXPECT_DOUBLE_EQ(h.value, 0.25);
  EXPECT_FALSE(h.is_integer);
}

TEST(ScalarPow, WithAFloatOperandIsAFloat) {
  const HParam h = evaluate("p = pow(d * 4, 0.5)", "p");  // 16^0.5
  EXPECT_DOUBLE_EQ(h.value, 4.0);
  EXPECT_FALSE(h.is_integer);
}

TEST(ScalarRound, GivesTheNearestInteger) {  // Phi-2: rotary dims = round(head_dim * 0.4)
  const HParam h = evaluate("r = round(64 * 0.4)", "r");
  EXPECT_EQ(h.value, 26);
  EXPECT_TRUE(h.is_integer);
}

TEST(ScalarRound, RoundsHalvesAwayFromZero) {
  EXPECT_EQ(evaluate("r = round(2.5)", "r").value, 3);
  EXPECT_EQ(evaluate("r = round(-2.5)", "r").value, -3);
}

TEST(ScalarIf, IsTheSecondArgumentWhenTheConditionIsNotZero) {
  EXPECT_EQ(evaluate("c = if(d - 3, 10, 20)", "c").value, 10);
  EXPECT_DOUBLE_EQ(evaluate("c = if(0.5, 1.5, 2)", "c").value, 1.5);
}

TEST(ScalarIf, IsTheThirdArgumentWhenTheConditionIsZero) {
  const HParam h = evaluate("c = if(d - 4, 1.5, 20)", "c");
  EXPECT_EQ(h.value, 20);
  EXPECT_TRUE(h.is_integer);  // the chosen value keeps its type
}

TEST(ScalarRemainder, OfIntegersIsAnInteger) {
  const HParam h = evaluate("m = 7 % 3", "m");
  EXPECT_EQ(h.value, 1);
  EXPECT_TRUE(h.is_integer);
}

TEST(ScalarRemainder, BindsLikeMultiplication) {
  EXPECT_EQ(evaluate("m = 1 + 7 % 3 * 2", "m").value, 3);  // 1 + ((7 % 3) * 2)
}

TEST(ScalarRemainder, KeepsTheSignOfTheDividend) {
  EXPECT_EQ(evaluate("m = -7 % 3", "m").value, -1);
  EXPECT_EQ(evaluate("m = 7 % -1", "m").value, 0);
}

TEST(PredefinedHf, IsZeroWithoutAWeightsFile) {
  const HParam h = evaluate("from_hf = hf", "from_hf");
  EXPECT_EQ(h.value, 0);
  EXPECT_TRUE(h.is_integer);
}

TEST(PredefinedHf, IsNotListedAsAHyperParameter) {
  const CompiledModel m = compile_text("model tiny\nhparams { d = 4 + hf  v = 8 }\n"
                                            "weights { emb [v, d] = \"emb\" }\n"
                                            "forward { logits = linear(outputs(embed(emb)), emb) }\n");
  EXPECT_EQ(m.find_hparam("hf"), nullptr);
  EXPECT_EQ(m.hparams.size(), 2u);
}

// Gemma 2's pattern: sliding-window attention on even layers only.
TEST(ScalarIf, WithARemainderPicksAnAttributePerLayer) {
  const Graph g = compile_text(R"(model tiny
hparams { d = 8  v = 16  n_layers = 4 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb)
  for i in 0 .. n_layers {
    x = attention(x, x, x, heads: 2, window: if(i % 2, 0, 16))
  }
  logits = linear(outputs(x), emb)
}
)")
                      .graph;
  std::vector<int> windows;
  for (const GraphNode* n : nodes_of(g, OpKind::Attention)) windows.push_back(std::get<AttentionParams>(n->params).window);
  EXPECT_EQ(windows, (std::vector<int>{16, 0, 16, 0}));
}

TEST(ScalarIf, ChoosesAChoiceAttributeByName) {
  const Graph g = compile_text(R"(model tiny
hparams { d = 8  v = 16  neox_style = 1 }
weights { emb [v, d] = "emb" }
forward {
  x = rope(embed(emb), heads: 2, pairing: if(neox_style, neox, interleaved))
  logits = linear(outputs(x), emb)
}
)")
                      .graph;
  EXPECT_EQ(only_params<RopeParams>(g, OpKind::Rope).pairing, TSR_ROPE_NEOX);
}

TEST(ScalarIf, NestsInsideAChoiceAttribute) {
  const Graph g = compile_text(R"(model tiny
hparams { d = 8  v = 16 }
weights { emb [v, d] = "emb" }
forward {
  x = gelu(embed(emb), approximate: if(hf, none, if(d - 8, none, tanh)))
  logits = linear(outputs(x), emb)
}
)")
                      .graph;
  EXPECT_EQ(nodes_of(g, OpKind::GeluTanh).size(), 1u);
}

}  // namespace
}  // namespace tessera::test
