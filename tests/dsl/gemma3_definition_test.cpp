// models/gemma3.tsr, compiled without a file (--set values): its final soft-cap applies
// only when one is given, and its local layers follow the sliding-window pattern.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "graph_query.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

CompiledModel compile_gemma3(std::map<std::string, std::string> extra) {
  std::ifstream in(source_path("models/gemma3.tsr"));
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, std::string> overrides = {{"d_model", "64"}, {"n_layers", "7"},  {"n_heads", "2"},
                                                  {"d_ff", "96"},    {"n_vocab", "100"}, {"head_dim", "32"}};
  overrides.merge(extra);
  return compile_text(text.str(), nullptr, overrides);
}

TEST(Gemma3Definition, HasNoFinalSoftcapByDefault) {  // released checkpoints: null
  EXPECT_TRUE(nodes_of(compile_gemma3({}).graph, OpKind::SoftCap).empty());
}

TEST(Gemma3Definition, CapsTheLogitsWhenTheFileGivesACap) {
  const CompiledModel m = compile_gemma3({{"final_cap", "30.0"}});
  const auto caps = nodes_of(m.graph, OpKind::SoftCap);
  ASSERT_EQ(caps.size(), 1u);
  EXPECT_FLOAT_EQ(std::get<ScaleParams>(caps[0]->params).scale, 30.0f);
  EXPECT_EQ(caps[0]->output, m.graph.logits());
}

TEST(Gemma3Definition, EverySixthLayerIsGlobal) {
  std::vector<int32_t> windows;
  const CompiledModel m = compile_gemma3({{"window", "512"}});  // outlives the node pointers
  for (const GraphNode* n : nodes_of(m.graph, OpKind::Attention)) {
    windows.push_back(std::get<AttentionParams>(n->params).window);
  }
  EXPECT_EQ(windows, (std::vector<int32_t>{512, 512, 512, 512, 512, 0, 512}));
}

TEST(Gemma3Definition, WithoutAWindowEveryLayerIsGlobal) {
  const CompiledModel m = compile_gemma3({});
  for (const GraphNode* n : nodes_of(m.graph, OpKind::Attention)) {
    EXPECT_EQ(std::get<AttentionParams>(n->params).window, 0);
  }
}

}  // namespace
}  // namespace tessera::test
