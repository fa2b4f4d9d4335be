// models/gemma2.tsr, compiled without a file (--set values): the attention scale llama.cpp
// uses for its GGUFs, which carry no query_pre_attn_scalar.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "graph_query.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

// The attention scale of every layer of gemma2.tsr with n_layers layers of 2 heads of 16
// on d_model 64 (so d_model / n_heads = 32 differs from head_dim).
std::vector<float> attention_scales(const std::string& n_layers, std::map<std::string, std::string> extra = {}) {
  std::ifstream in(source_path("models/gemma2.tsr"));
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, std::string> overrides = {{"d_model", "64"}, {"n_layers", n_layers}, {"n_heads", "2"},
                                                  {"d_ff", "96"},    {"n_vocab", "100"},     {"head_dim", "16"}};
  overrides.merge(extra);
  const CompiledModel m = compile_text(text.str(), nullptr, overrides);
  std::vector<float> scales;
  for (const GraphNode* n : nodes_of(m.graph, OpKind::Attention)) {
    scales.push_back(std::get<AttentionParams>(n->params).scale);
  }
  return scales;
}

TEST(Gemma2Definition, ScalesScoresByHeadDimWithoutAScalar) {  // 2B and 9B
  const std::vector<float> scales = attention_scales("26");
  ASSERT_EQ(scales.size(), 26u);
  for (float s : scales) EXPECT_FLOAT_EQ(s, 1.0f / std::sqrt(16.0f));
}

TEST(Gemma2Definition, ScalesScoresByModelWidthPerHeadFor27B) {  // 46 layers, as llama.cpp
  const std::vector<float> scales = attention_scales("46");
  ASSERT_EQ(scales.size(), 46u);
  for (float s : scales) EXPECT_FLOAT_EQ(s, 1.0f / std::sqrt(32.0f));
}

TEST(Gemma2Definition, AGivenScalarWins) {
  for (float s : attention_scales("46", {{"q_scalar", "24"}})) EXPECT_FLOAT_EQ(s, 1.0f / std::sqrt(24.0f));
}

}  // namespace
}  // namespace tessera::test
