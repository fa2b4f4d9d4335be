// Arithmetic on tensors lowered to graph nodes: a - b (SUB, row broadcasts in either
// order), -x and a tensor shifted by a number (AFFINE), scaling (SCALE); and if() choosing
// between tensors, which lowers only the chosen one but checks both.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

const int64_t T = sym(SymDim::Tokens);

// A model of width d = 8, vocabulary v = 16 and a row r [d]: `x = embed(emb)`, then
// `body`, which must set y [Tokens, 8].
std::string tiny_model(const std::string& body, const std::string& weights = "") {
  return "model tiny\n"
         "hparams { d = 8  v = 16  n = 4 }\n"
         "weights {\n"
         "  emb [v, d] = \"emb\"\n"
         "  r [d] = \"r\"\n" +
         weights +
         "}\n"
         "forward {\n"
         "  x = embed(emb)\n" +
         body +
         "\n  logits = linear(outputs(y + 0 * r), emb)\n"
         "}\n";
}

const GraphNode& only_node(const Graph& g, OpKind op) {
  const auto nodes = nodes_of(g, op);
  if (nodes.size() != 1) throw std::runtime_error("expected one " + std::string(op_name(op)) + " node");
  return *nodes.front();
}

int tensor_id(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.tensors().size(); ++i) {
    if (g.tensors()[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// The (scale, bias) of the first AFFINE node of `body`'s graph.
std::pair<float, float> affine_of(const std::string& body) {
  const Graph g = compile_text(tiny_model(body)).graph;
  const auto& p = std::get<AffineParams>(nodes_of(g, OpKind::Affine).front()->params);
  return {p.scale, p.bias};
}

TEST(TensorSub, OfTwoTensorsIsOneSubNode) {
  const Graph g = compile_text(tiny_model("  h = x * 2\n  y = x - h")).graph;
  const GraphNode& sub = only_node(g, OpKind::Sub);
  EXPECT_EQ(sub.inputs, (std::vector<int>{g.nodes()[0].output, g.nodes()[1].output}));
  EXPECT_EQ(g.tensor(sub.output).shape, (Shape{T, 8}));
}

TEST(TensorSub, OfARowBroadcastsItOverTheRows) {
  const Graph g = compile_text(tiny_model("  y = x - r")).graph;
  EXPECT_EQ(only_node(g, OpKind::Sub).inputs, (std::vector<int>{g.nodes()[0].output, tensor_id(g, "r")}));
}

TEST(TensorSub, RowMinusMatrixIsTheNegatedDifference) {
  const Graph g = compile_text(tiny_model("  y = r - x")).graph;
  const GraphNode& sub = only_node(g, OpKind::Sub);
  EXPECT_EQ(sub.inputs, (std::vector<int>{g.nodes()[0].output, tensor_id(g, "r")}));  // x - r
  const GraphNode& negate = *nodes_of(g, OpKind::Affine).front();
  EXPECT_EQ(negate.inputs, (std::vector<int>{sub.output}));
  EXPECT_FLOAT_EQ(std::get<AffineParams>(negate.params).scale, -1.0f);
  EXPECT_FLOAT_EQ(std::get<AffineParams>(negate.params).bias, 0.0f);
}

TEST(TensorNegation, IsAnAffineNodeWithScaleMinusOne) {
  EXPECT_EQ(affine_of("  y = -x"), std::make_pair(-1.0f, 0.0f));
}

TEST(TensorAndNumber, PlusANumberShifts) {
  EXPECT_EQ(affine_of("  y = x + 0.5"), std::make_pair(1.0f, 0.5f));
  EXPECT_EQ(affine_of("  y = 2 + x"), std::make_pair(1.0f, 2.0f));
}

TEST(TensorAndNumber, MinusANumberShiftsDown) { EXPECT_EQ(affine_of("  y = x - d"), std::make_pair(1.0f, -8.0f)); }

TEST(TensorAndNumber, NumberMinusTensorNegatesAndShifts) {
  EXPECT_EQ(affine_of("  y = 1.0 - x"), std::make_pair(-1.0f, 1.0f));
}

TEST(TensorAndNumber, TimesAndDividedByANumberStillScale) {
  const Graph g = compile_text(tiny_model("  y = x / 4")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows scale scale add get_rows matmul");  // x / 4, then 0 * r
  EXPECT_FLOAT_EQ(std::get<ScaleParams>(g.nodes()[1].params).scale, 0.25f);
}

TEST(TensorAndNumber, NegationBindsTighterThanProducts) {  // (-x) * 3
  const Graph g = compile_text(tiny_model("  y = -x * 3")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows affine scale scale add get_rows matmul");
}

// "No RoPE on every fourth layer": the branch not taken adds no node.
TEST(TensorIf, LowersOnlyTheChosenBranch) {
  const Graph g = compile_text(tiny_model(
                                   "  y = x\n"
                                   "  for i in 0 .. n { y = if(i % 4 == 3, y, rope(y, heads: 2)) }"))
                      .graph;
  EXPECT_EQ(nodes_of(g, OpKind::Rope).size(), 3u);
  EXPECT_EQ(op_sequence(g), "get_rows rope rope rope scale add get_rows matmul");
}

TEST(TensorIf, OfTwoWeightsChoosesOne) {
  const Graph g =
      compile_text(tiny_model("  y = linear(x, if(d > 4, wa, wb))", "  wa [d, d] = \"wa\"\n  wb [d, d] = \"wb\"\n"))
          .graph;
  EXPECT_EQ(g.nodes()[1].inputs[1], tensor_id(g, "wa"));
  EXPECT_EQ(tensor_id(g, "wb"), -1);  // the other is in no graph, yet counts as used
}

TEST(TensorIf, OfNumbersInForwardIsANumber) {
  const Graph g = compile_text(tiny_model("  y = x * if(d > 4, 3, 5)")).graph;
  EXPECT_FLOAT_EQ(std::get<ScaleParams>(g.nodes()[1].params).scale, 3.0f);
}

TEST(TensorIf, TheBranchNotTakenMayUseAnAbsentOptionalWeight) {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {16, 8});
  f.add_tensor("r", {8});
  f.add_tensor("blk.1.w", {8, 8});
  const std::string body =
      "  y = x\n"
      "  for i in 0 .. 2 { y = if(i == 1, linear(y, w[i]), y) }";
  const std::string weights = "  layer i in 0 .. 2 { w [d, d] = \"blk.{i}.w\" else none }\n";
  const Graph g = compile_text(tiny_model(body, weights), &f).graph;
  EXPECT_EQ(nodes_of(g, OpKind::MatMul).size(), 2u);  // layer 1's, and the logits'
}

TEST(TensorIf, ChoosingAnAbsentWeightForAnOptionalArgumentLeavesItOut) {
  // Without a file, the optional bias b1 is absent: layer 1's linear has no bias.
  const std::string weights = "  w [d, d] = \"w\"\n  b0 [d] = \"b0\"\n  b1 [d] = \"b1\" else none\n";
  const std::string body = "  y = x\n  for i in 0 .. 2 { y = linear(y, w, if(i == 0, b0, b1)) }";
  EXPECT_EQ(op_sequence(compile_text(tiny_model(body, weights)).graph),
            "get_rows matmul add matmul scale add get_rows matmul");
}

TEST(TensorIf, ChecksTheBranchNotTaken) {
  EXPECT_EQ(dsl_error(tiny_model("  y = if(1, x, rope(x, heads: 2, pairing: neo))")),
            "attribute 'pairing' of rope must be one of interleaved, neox, not 'neo'; did you mean 'neox'?");
}

}  // namespace
}  // namespace tessera::test
