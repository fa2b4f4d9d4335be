// Nested loops: a layer loop with an inner loop repeating steps within the layer. The
// nodes belong to the outer (layer) index: their labels name it, and the summary's
// per-layer counts are those of one layer.
#include <gtest/gtest.h>

#include "dsl/summary.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

const char* const kNested = R"(model tiny
hparams { d = 8  v = 16  n = 3 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n { w [d, d] = "blk.{i}.w" }
}
forward {
  x = embed(emb)
  for i in 0 .. n {
    for j in 0 .. 2 {
      x = x + linear(x, w[i])
    }
  }
  logits = linear(outputs(x), emb)
}
)";

TEST(NestedLoops, LabelsNameTheOuterLoopIndex) {
  const CompiledModel m = compile_text(kNested);
  const auto adds = nodes_of(m.graph, OpKind::Add);
  ASSERT_EQ(adds.size(), 6u);
  for (size_t k = 0; k < adds.size(); ++k) {
    EXPECT_EQ(adds[k]->label, "layer " + std::to_string(k / 2) + ": x = x + linear(x, w[i])") << k;
  }
}

TEST(NestedLoops, NodesBelongToTheOuterLoopIndex) {
  const CompiledModel m = compile_text(kNested);
  // embed; per layer 2 x (matmul, add); outputs and the output matmul.
  EXPECT_EQ(m.node_layers, (std::vector<int>{-1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, -1, -1}));
}

TEST(NestedLoops, SummaryCountsTheNodesOfOneLayer) {
  const dsl::ModelSummary s = dsl::summarize(compile_text(kNested));
  EXPECT_EQ(s.first_layer, 0);
  const std::map<dsl::OpCountKey, int> per_layer = {{{OpKind::MatMul, ""}, 2}, {{OpKind::Add, ""}, 2}};
  EXPECT_EQ(s.ops_per_layer, per_layer);
}

}  // namespace
}  // namespace tessera::test
