// Named numbers: `s = 1.0 / sqrt(d)` in the forward section or a block names a number
// for the statements after it in that scope (attributes, arithmetic, loop bounds,
// weight indices, has() names); it adds no node.
#include <gtest/gtest.h>

#include "graph_query.h"

namespace tessera::test {
namespace {

// A model of width d = 8 and vocabulary v = 16 whose forward section is `body`
// (which must set y [Tokens, 8]) followed by the logits.
std::string tiny_model(const std::string& body, const std::string& blocks = "") {
  return "model tiny\n"
         "hparams { d = 8  v = 16 }\n"
         "weights { emb [v, d] = \"emb\" }\n" +
         blocks +
         "forward {\n" + body +
         "\n  logits = linear(outputs(y), emb)\n"
         "}\n";
}

std::vector<float> scales(const Graph& g) {
  std::vector<float> out;
  for (const GraphNode* n : nodes_of(g, OpKind::Scale)) out.push_back(std::get<ScaleParams>(n->params).scale);
  return out;
}

TEST(NamedNumbers, AddNoNodeAndServeLaterStatements) {
  const Graph g = compile_text(tiny_model("  s = 1.0 / sqrt(d * 2)\n  y = embed(emb) * s")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows scale get_rows matmul");
  EXPECT_EQ(scales(g), (std::vector<float>{0.25f}));
}

TEST(NamedNumbers, ServeAttributes) {
  const Graph g =
      compile_text(tiny_model("  heads = d / 4\n  y = attention(embed(emb), embed(emb), embed(emb), heads: heads)"))
          .graph;
  EXPECT_EQ(only_params<AttentionParams>(g, OpKind::Attention).n_heads, 2);
}

TEST(NamedNumbers, MayBeReassignedAndKeepTheLatestValue) {
  const Graph g = compile_text(tiny_model("  s = 2\n  s = s * 3\n  y = embed(emb) * s")).graph;
  EXPECT_EQ(scales(g), (std::vector<float>{6.0f}));
}

TEST(NamedNumbers, AssignedInALoopUpdateTheOuterName) {  // as tensor variables do
  const Graph g = compile_text(tiny_model("  s = 1\n  for i in 0 .. 3 { s = s + i }\n  y = embed(emb) * s")).graph;
  EXPECT_EQ(scales(g), (std::vector<float>{4.0f}));  // 1 + 0 + 1 + 2
}

TEST(NamedNumbers, FirstNamedInALoopLiveInItsBody) {
  // `j` of the first loop is gone after it: the second loop's own `j` is its loop variable.
  const Graph g = compile_text(tiny_model(
                                   "  y = embed(emb)\n"
                                   "  for i in 0 .. 2 { j = i + 10\n  y = y * j }\n"
                                   "  for j in 0 .. 2 { y = y * (j + 1) }"))
                      .graph;
  EXPECT_EQ(scales(g), (std::vector<float>{10.0f, 11.0f, 1.0f, 2.0f}));
}

TEST(NamedNumbers, ServeLoopBoundsAndConditions) {
  const Graph g = compile_text(tiny_model(
                                   "  n = d / 4\n  y = embed(emb)\n"
                                   "  for i in 0 .. n + 1 { every = 2\n  y = if(i % every == 0, y * 2, y) }"))
                      .graph;
  EXPECT_EQ(scales(g), (std::vector<float>{2.0f, 2.0f}));  // i = 0 and 2 of 0 .. 3
}

TEST(NamedNumbers, LiveInTheirBlock) {
  const std::string block = "block scaled(x, k) {\n  s = k * 2\n  return x * s\n}\n";
  const Graph g = compile_text(tiny_model("  s = 100\n  y = scaled(embed(emb), 3) * s", block)).graph;
  EXPECT_EQ(scales(g), (std::vector<float>{6.0f, 100.0f}));  // the block's s does not touch the caller's
}

TEST(NamedNumbers, ServeWeightIndices) {
  const Graph g = compile_text(R"(model tiny
hparams { d = 8  v = 16 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. 2 { w [d, d] = "blk.{i}.w" }
}
forward {
  y = embed(emb)
  for i in 0 .. 2 {
    j = 1 - i
    y = linear(y, w[j])
  }
  logits = linear(outputs(y), emb)
}
)")
                      .graph;
  const auto matmuls = nodes_of(g, OpKind::MatMul);
  EXPECT_EQ(g.tensor(matmuls[0]->inputs[1]).name, "blk.1.w");
  EXPECT_EQ(g.tensor(matmuls[1]->inputs[1]).name, "blk.0.w");
}

}  // namespace
}  // namespace tessera::test
