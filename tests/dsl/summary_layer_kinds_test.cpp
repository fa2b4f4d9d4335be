// `tessera check`'s per-layer line when layers differ: the layers are grouped by the
// nodes they compute, and each kind is listed with the layers it covers.
#include <gtest/gtest.h>

#include "dsl/summary.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

// A model of n layers of d x d weights, each layer computing `step` (x = x + ...).
std::string layers_model(int n, const std::string& step) {
  return "model tiny\nhparams { d = 8  v = 16  n = " + std::to_string(n) +
         " }\n"
         "weights {\n  emb [v, d] = \"emb\"\n  layer i in 0 .. n { w [d, d] = \"blk.{i}.w\" }\n}\n"
         "forward {\n  x = embed(emb)\n  for i in 0 .. n { x = x + " +
         step + " }\n  logits = linear(outputs(x), emb)\n}\n";
}

// Five layers; layers 1, 2 and 4 add a second matmul (as dense layers between expert ones
// add their own nodes).
const std::string kMixedLayers =
    layers_model(5, "if(i == 1 || i == 2 || i == 4, linear(linear(x, w[i]), w[i]), linear(x, w[i]))");

TEST(SummaryLayerKinds, GroupsLayersByTheirNodes) {
  const dsl::ModelSummary s = dsl::summarize(compile_text(kMixedLayers));
  ASSERT_EQ(s.layer_groups.size(), 2u);
  EXPECT_EQ(s.layer_groups[0].layers, (std::vector<int>{0, 3}));
  EXPECT_EQ(s.layer_groups[1].layers, (std::vector<int>{1, 2, 4}));
  const std::map<dsl::OpCountKey, int> two_matmuls = {{{OpKind::MatMul, ""}, 2}, {{OpKind::Add, ""}, 1}};
  EXPECT_EQ(s.layer_groups[1].ops, two_matmuls);
}

TEST(SummaryLayerKinds, CheckListsEachKindWithItsLayers) {
  const CompiledModel m = compile_text(kMixedLayers);
  const std::string text = dsl::format_summary(m, dsl::summarize(m));
  EXPECT_NE(text.find("\nper layer, 2 kinds:\n"
                      "  layers 0, 3: 2 nodes (matmul 1, add 1)\n"
                      "  layers 1-2, 4: 3 nodes (matmul 2, add 1)\n"),
            std::string::npos)
      << text;
}

TEST(SummaryLayerKinds, OneKindKeepsTheSingleLine) {
  const CompiledModel m = compile_text(layers_model(3, "linear(x, w[i])"));
  const dsl::ModelSummary s = dsl::summarize(m);
  ASSERT_EQ(s.layer_groups.size(), 1u);
  EXPECT_EQ(s.layer_groups[0].layers, (std::vector<int>{0, 1, 2}));
  EXPECT_NE(dsl::format_summary(m, s).find("\nper layer: 2 nodes (matmul 1, add 1)\n"), std::string::npos);
}

}  // namespace
}  // namespace tessera::test
