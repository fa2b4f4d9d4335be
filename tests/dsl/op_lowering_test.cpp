// The ops added for GPT-2, Phi, Gemma, Qwen 3, BLOOM, MPT and OLMo lowered to graph
// nodes: linear with a bias, layer_norm (with and without a weight), gains and per-head
// norms, GELU variants, ReLU, softcap (0: none), clamp, slice, learned positions, ALiBi
// and YaRN; each node's inputs and params.
#include <gtest/gtest.h>

#include "graph_query.h"

namespace tessera::test {
namespace {

const int64_t T = sym(SymDim::Tokens);

// A model of width d = 8 and vocabulary v = 16: `x = embed(emb)` [Tokens, 8], then
// `body`, which must set y [Tokens, width]; the logits come from y through head.
// `weights` adds declarations.
std::string tiny_model(const std::string& weights, const std::string& body, int width = 8) {
  return "model tiny\n"
         "hparams { d = 8  v = 16 }\n"
         "weights {\n"
         "  emb [v, d] = \"emb\"\n"
         "  head [v, " + std::to_string(width) + "] = \"head\"\n" +
         weights +
         "}\n"
         "forward {\n"
         "  x = embed(emb)\n" +
         body +
         "\n  logits = linear(outputs(y), head)\n"
         "}\n";
}

int weight_id(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.tensors().size(); ++i) {
    if (g.tensors()[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(LowerLinear, WithoutBiasIsOneMatMul) {
  const Graph g = compile_text(tiny_model("  w [4, d] = \"w\"\n", "  y = linear(x, w)", 4)).graph;
  EXPECT_EQ(op_sequence(g), "get_rows matmul get_rows matmul");
}

TEST(LowerLinear, AddsTheBiasRowToTheProduct) {
  const Graph g =
      compile_text(tiny_model("  w [4, d] = \"w\"\n  b [4] = \"b\"\n", "  y = linear(x, w, b)", 4)).graph;
  EXPECT_EQ(op_sequence(g), "get_rows matmul add get_rows matmul");
  const GraphNode& add = *nodes_of(g, OpKind::Add).front();
  EXPECT_EQ(add.inputs, (std::vector<int>{nodes_of(g, OpKind::MatMul).front()->output, weight_id(g, "b")}));
  EXPECT_EQ(g.tensor(add.output).shape, (Shape{T, 4}));
}

TEST(LowerLayerNorm, WithABiasTakesThreeInputs) {
  const Graph g = compile_text(tiny_model("  g [d] = \"g\"\n  beta [d] = \"beta\"\n",
                                          "  y = layer_norm(x, g, beta, eps: 1e-6)"))
                      .graph;
  const GraphNode& n = *nodes_of(g, OpKind::LayerNorm).front();
  EXPECT_EQ(n.inputs, (std::vector<int>{g.nodes().front().output, weight_id(g, "g"), weight_id(g, "beta")}));
  const auto& p = std::get<NormParams>(n.params);
  EXPECT_FLOAT_EQ(p.eps, 1e-6f);
  EXPECT_EQ(p.weight_plus_one, 0);
  EXPECT_EQ(p.group, 0);
  EXPECT_EQ(g.tensor(n.output).shape, (Shape{T, 8}));
}

TEST(LowerLayerNorm, WithoutABiasTakesTwoInputsAndTheDefaultEpsilon) {
  const Graph g = compile_text(tiny_model("  g [d] = \"g\"\n", "  y = layer_norm(x, g)")).graph;
  const GraphNode& n = *nodes_of(g, OpKind::LayerNorm).front();
  EXPECT_EQ(n.inputs.size(), 2u);
  EXPECT_FLOAT_EQ(std::get<NormParams>(n.params).eps, 1e-5f);
}

TEST(LowerLayerNorm, PerHeadNormalisesEachGroupOfColumns) {
  const Graph g = compile_text(tiny_model("  g [2] = \"g\"\n", "  y = layer_norm(x, g, heads: 4)")).graph;
  EXPECT_EQ(only_params<NormParams>(g, OpKind::LayerNorm).group, 2);
}

TEST(LowerLayerNorm, GainNoneTakesOnlyTheInput) {  // OLMo: a norm without parameters
  const Graph g = compile_text(tiny_model("", "  y = layer_norm(x, gain: none, eps: 1e-6)")).graph;
  const GraphNode& n = *nodes_of(g, OpKind::LayerNorm).front();
  EXPECT_EQ(n.inputs, (std::vector<int>{g.nodes().front().output}));
  const auto& p = std::get<NormParams>(n.params);
  EXPECT_FLOAT_EQ(p.eps, 1e-6f);
  EXPECT_EQ(p.weight_plus_one, 0);
  EXPECT_EQ(p.group, 0);
}

TEST(LowerLayerNorm, GainNoneWithAnAbsentOptionalWeight) {  // without a file, `else none` is absent
  const Graph g = compile_text(tiny_model("  g [d] = \"g\" else none\n", "  y = layer_norm(x, g, gain: none)")).graph;
  EXPECT_EQ(nodes_of(g, OpKind::LayerNorm).front()->inputs.size(), 1u);
}

TEST(LowerLayerNorm, GainNonePerHead) {
  const Graph g = compile_text(tiny_model("", "  y = layer_norm(x, gain: none, heads: 2)")).graph;
  EXPECT_EQ(only_params<NormParams>(g, OpKind::LayerNorm).group, 4);
}

TEST(LowerRmsNorm, GainOnePlusWeightSetsWeightPlusOne) {
  const Graph g =
      compile_text(tiny_model("  g [d] = \"g\"\n", "  y = rms_norm(x, g, gain: one_plus_weight)")).graph;
  EXPECT_EQ(only_params<NormParams>(g, OpKind::RmsNorm).weight_plus_one, 1);
}

TEST(LowerRmsNorm, GainWeightIsTheDefault) {
  const Graph g = compile_text(tiny_model("  g [d] = \"g\"\n", "  y = rms_norm(x, g)")).graph;
  const auto& p = std::get<NormParams>(nodes_of(g, OpKind::RmsNorm).front()->params);
  EXPECT_EQ(p.weight_plus_one, 0);
  EXPECT_EQ(p.group, 0);
}

TEST(LowerRmsNorm, HeadsNormaliseEachHeadWithAOneHeadWeight) {  // Qwen 3 QK-norm
  const Graph g = compile_text(tiny_model("  qn [4] = \"qn\"\n", "  y = rms_norm(x, qn, heads: 2, eps: 1e-6)")).graph;
  const auto& p = only_params<NormParams>(g, OpKind::RmsNorm);
  EXPECT_EQ(p.group, 4);
  EXPECT_FLOAT_EQ(p.eps, 1e-6f);
}

TEST(LowerGelu, IsExactByDefault) {
  const Graph g = compile_text(tiny_model("", "  y = gelu(x)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows gelu get_rows matmul");
}

TEST(LowerGelu, ApproximateTanhUsesTheTanhKernel) {
  const Graph g = compile_text(tiny_model("", "  y = gelu(x, approximate: tanh)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows gelu_tanh get_rows matmul");
}

TEST(LowerGeglu, IsGeluOfTheGateTimesUp) {
  const Graph g = compile_text(tiny_model("  wu [d, d] = \"wu\"\n",
                                          "  u = linear(x, wu)\n  y = geglu(x, u, approximate: tanh)"))
                      .graph;
  EXPECT_EQ(op_sequence(g), "get_rows matmul gelu_tanh mul get_rows matmul");
  const GraphNode& gelu = *nodes_of(g, OpKind::GeluTanh).front();
  const GraphNode& mul = *nodes_of(g, OpKind::Mul).front();
  EXPECT_EQ(gelu.inputs, (std::vector<int>{g.nodes().front().output}));
  EXPECT_EQ(mul.inputs, (std::vector<int>{gelu.output, nodes_of(g, OpKind::MatMul).front()->output}));
}

TEST(LowerGeglu, IsExactByDefault) {
  const Graph g = compile_text(tiny_model("", "  y = geglu(x, x)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows gelu mul get_rows matmul");
}

TEST(LowerRelu, IsOneReluNode) {
  const Graph g = compile_text(tiny_model("", "  y = relu(x)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows relu get_rows matmul");
}

TEST(LowerReluSqr, IsOneSquaredReluNode) {
  const Graph g = compile_text(tiny_model("", "  y = relu_sqr(x)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows relu_sqr get_rows matmul");
}

TEST(LowerSoftcap, CarriesTheCapAsItsScale) {
  const Graph g = compile_text(tiny_model("", "  y = softcap(x, 30.0)")).graph;
  EXPECT_FLOAT_EQ(only_params<ScaleParams>(g, OpKind::SoftCap).scale, 30.0f);
}

TEST(LowerSoftcap, OfZeroIsNoCapAndNoNode) {  // a file whose soft-cap is null or absent
  const Graph g = compile_text(tiny_model("  h [d, d] = \"h\"\n", "  y = softcap(linear(x, h), 0.0)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows matmul get_rows matmul");
  EXPECT_EQ(g.tensor(g.nodes()[1].output).name, "y");  // the capped value's name goes to its input
}

TEST(LowerClamp, CarriesItsBounds) {
  const Graph g = compile_text(tiny_model("", "  y = clamp(x, -d, d / 2)")).graph;
  const auto& p = only_params<ClampParams>(g, OpKind::Clamp);
  EXPECT_FLOAT_EQ(p.lo, -8.0f);
  EXPECT_FLOAT_EQ(p.hi, 4.0f);
  EXPECT_EQ(g.tensor(nodes_of(g, OpKind::Clamp).front()->output).shape, (Shape{T, 8}));
}

TEST(LowerClamp, MayHaveEqualBounds) {
  const Graph g = compile_text(tiny_model("", "  y = clamp(x, 0.5, 0.5)")).graph;
  EXPECT_FLOAT_EQ(only_params<ClampParams>(g, OpKind::Clamp).hi, 0.5f);
}

TEST(LowerSlice, TakesCountColumnsFromStart) {
  const Graph g = compile_text(tiny_model("", "  y = slice(x, 2, 3)", 3)).graph;
  const auto& p = only_params<SliceParams>(g, OpKind::Slice);
  EXPECT_EQ(p.start, 2);
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p.stride, 3);  // count when not given
  EXPECT_EQ(p.groups, 1);
  EXPECT_EQ(g.tensor(nodes_of(g, OpKind::Slice).front()->output).shape, (Shape{T, 3}));
}

TEST(LowerSlice, GroupsWithAStrideGatherPerHeadColumns) {  // q of a fused per-head q/k/v
  const Graph g = compile_text(tiny_model("", "  y = slice(x, 1, 2, groups: 2, stride: 4)", 4)).graph;
  const auto& p = only_params<SliceParams>(g, OpKind::Slice);
  EXPECT_EQ(p.start, 1);
  EXPECT_EQ(p.count, 2);
  EXPECT_EQ(p.stride, 4);
  EXPECT_EQ(p.groups, 2);
  EXPECT_EQ(g.tensor(nodes_of(g, OpKind::Slice).front()->output).shape, (Shape{T, 4}));
}

TEST(LowerEmbedPositions, ReadsTheRowsOfTheTokensPositions) {
  const Graph g = compile_text(tiny_model("  pos [32, d] = \"pos\"\n", "  y = x + embed_positions(pos)")).graph;
  EXPECT_EQ(op_sequence(g), "get_rows get_rows add get_rows matmul");
  const GraphNode& rows = g.nodes()[1];
  EXPECT_EQ(rows.inputs, (std::vector<int>{weight_id(g, "pos"), g.step_input(StepInput::Positions)}));
  EXPECT_EQ(g.tensor(rows.output).shape, (Shape{T, 8}));
}

TEST(LowerAttention, AlibiSetsTheMaximumBias) {
  const Graph g = compile_text(tiny_model("", "  y = attention(x, x, x, heads: 2, alibi: 8.0)")).graph;
  const auto& p = only_params<AttentionParams>(g, OpKind::Attention);
  EXPECT_FLOAT_EQ(p.alibi_max_bias, 8.0f);
  EXPECT_EQ(p.softcap, 0.0f);
}

TEST(LowerAttention, AlibiIsOffByDefault) {
  const Graph g = compile_text(tiny_model("", "  y = attention(x, x, x, heads: 2)")).graph;
  EXPECT_EQ(only_params<AttentionParams>(g, OpKind::Attention).alibi_max_bias, 0.0f);
}

TEST(LowerRope, YarnAttributesFillTheYarnParams) {
  const Graph g = compile_text(tiny_model("",
                                          "  y = rope(x, heads: 2, scale: 0.25, yarn_orig_ctx: 4096, "
                                          "yarn_beta_fast: 16.0, yarn_beta_slow: 2.0, yarn_attn_factor: 1.5)"))
                      .graph;
  const auto& p = only_params<RopeParams>(g, OpKind::Rope);
  EXPECT_FLOAT_EQ(p.ext_factor, 1.0f);
  EXPECT_EQ(p.n_ctx_orig, 4096);
  EXPECT_FLOAT_EQ(p.beta_fast, 16.0f);
  EXPECT_FLOAT_EQ(p.beta_slow, 2.0f);
  EXPECT_FLOAT_EQ(p.attn_factor, 1.5f);
  EXPECT_FLOAT_EQ(p.freq_scale, 0.25f);
}

TEST(LowerRope, YarnBetasAndFactorHaveDefaults) {
  const Graph g = compile_text(tiny_model("", "  y = rope(x, heads: 2, yarn_orig_ctx: 2048)")).graph;
  const auto& p = only_params<RopeParams>(g, OpKind::Rope);
  EXPECT_FLOAT_EQ(p.ext_factor, 1.0f);
  EXPECT_EQ(p.n_ctx_orig, 2048);
  EXPECT_FLOAT_EQ(p.beta_fast, 32.0f);
  EXPECT_FLOAT_EQ(p.beta_slow, 1.0f);
  EXPECT_FLOAT_EQ(p.attn_factor, 1.0f);
}

TEST(LowerRope, WithoutYarnOrigCtxYarnIsOff) {
  const Graph g = compile_text(tiny_model("", "  y = rope(x, heads: 2, yarn_beta_fast: 16.0)")).graph;
  const auto& p = only_params<RopeParams>(g, OpKind::Rope);
  EXPECT_EQ(p.ext_factor, 0.0f);
  EXPECT_EQ(p.n_ctx_orig, 0);
}

}  // namespace
}  // namespace tessera::test
