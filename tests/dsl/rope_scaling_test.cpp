// RoPE frequency scaling in the DSL: rope's optional freq_factors argument becomes the
// node's input 2, the llama3_* attributes fill the Llama 3.1 params (only with a
// factor), mistakes are refused with their exact diagnostics, and models/llama.tsr
// reads Llama 3.1's config.json keys (transformers 5 and older spellings).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fake_weight_file.h"
#include "graph_query.h"
#include "llama_fixture.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

// A model of width 8 (rope with 2 heads: head_dim 4, 2 pairs) whose forward sets
// y = `rope_call` on x = embed(emb); `weights` adds declarations.
std::string model(const std::string& weights, const std::string& rope_call) {
  return "model tiny\n"
         "hparams { d = 8  v = 16 }\n"
         "weights {\n"
         "  emb [v, d] = \"emb\"\n" +
         weights +
         "}\n"
         "forward {\n"
         "  x = embed(emb)\n"
         "  y = " + rope_call + "\n"
         "  logits = linear(outputs(y), emb)\n"
         "}\n";
}

const GraphNode& only_rope(const Graph& g) {
  const auto ropes = nodes_of(g, OpKind::Rope);
  if (ropes.size() != 1) throw std::runtime_error("expected one rope node");
  return *ropes.front();
}

int tensor_id(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.tensors().size(); ++i) {
    if (g.tensors()[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// ---- params and inputs ---------------------------------------------------------------

TEST(RopeLlama3, AttributesFillTheParams) {
  const Graph g = compile_text(model("", "rope(x, heads: 2, llama3_factor: 8.0, llama3_low_freq_factor: 2.0, "
                                         "llama3_high_freq_factor: 6.0, llama3_orig_ctx: 8192)"))
                      .graph;
  const auto& p = std::get<RopeParams>(only_rope(g).params);
  EXPECT_FLOAT_EQ(p.llama3_factor, 8.0f);
  EXPECT_FLOAT_EQ(p.llama3_low_freq_factor, 2.0f);
  EXPECT_FLOAT_EQ(p.llama3_high_freq_factor, 6.0f);
  EXPECT_EQ(p.n_ctx_orig, 8192);
  EXPECT_FLOAT_EQ(p.freq_scale, 1.0f);
  EXPECT_EQ(p.ext_factor, 0.0f);
}

TEST(RopeLlama3, BandFactorsDefaultToLlama31s) {
  const Graph g = compile_text(model("", "rope(x, heads: 2, llama3_factor: 8.0, llama3_orig_ctx: 8192)")).graph;
  const auto& p = std::get<RopeParams>(only_rope(g).params);
  EXPECT_FLOAT_EQ(p.llama3_low_freq_factor, 1.0f);
  EXPECT_FLOAT_EQ(p.llama3_high_freq_factor, 4.0f);
}

TEST(RopeLlama3, WithoutAFactorNothingIsSet) {
  const Graph g =
      compile_text(model("", "rope(x, heads: 2, llama3_low_freq_factor: 2.0, llama3_orig_ctx: 8192)")).graph;
  const auto& p = std::get<RopeParams>(only_rope(g).params);
  EXPECT_EQ(p.llama3_factor, 0.0f);
  EXPECT_EQ(p.llama3_low_freq_factor, 0.0f);
  EXPECT_EQ(p.llama3_high_freq_factor, 0.0f);
  EXPECT_EQ(p.n_ctx_orig, 0);
}

TEST(RopeFreqFactors, BecomeInputTwo) {
  const Graph g = compile_text(model("  rf [2] = \"rf\"\n", "rope(x, rf, heads: 2)")).graph;
  const GraphNode& rope = only_rope(g);
  ASSERT_EQ(rope.inputs.size(), 3u);
  EXPECT_EQ(rope.inputs[0], g.nodes().front().output);
  EXPECT_EQ(rope.inputs[1], g.step_input(StepInput::Positions));
  EXPECT_EQ(rope.inputs[2], tensor_id(g, "rf"));
}

TEST(RopeFreqFactors, LeftOutTheNodeHasTwoInputs) {
  const Graph g = compile_text(model("", "rope(x, heads: 2)")).graph;
  EXPECT_EQ(only_rope(g).inputs.size(), 2u);
}

TEST(RopeFreqFactors, MatchTheRotatedDimsNotTheHead) {
  const Graph g = compile_text(model("  rf [1] = \"rf\"\n", "rope(x, rf, heads: 2, dims: 2)")).graph;
  EXPECT_EQ(only_rope(g).inputs.size(), 3u);
}

TEST(RopeFreqFactors, AnAbsentOptionalWeightIsLeftOut) {
  FakeWeightFile file("tiny.gguf");
  file.set_string("general.architecture", "tiny");
  file.add_tensor("emb", {16, 8});
  const Graph g = compile_text(model("  rf [2] = \"rf\" else none\n", "rope(x, rf, heads: 2)"), &file).graph;
  EXPECT_EQ(only_rope(g).inputs.size(), 2u);
}

// ---- mistakes --------------------------------------------------------------------------

const std::string kFactorsTooLong = model("  rf [4] = \"rf\"\n", "rope(x, rf, heads: 2)");
const std::string kFactorsMatrix = model("  rf [2, 1] = \"rf\"\n", "rope(x, rf, heads: 2)");
const std::string kThreeArguments = model("  rf [2] = \"rf\"\n", "rope(x, rf, rf, heads: 2)");
const std::string kWithYarn =
    model("", "rope(x, heads: 2, yarn_orig_ctx: 4096, llama3_factor: 8.0, llama3_orig_ctx: 8192)");
const std::string kLowNotBelowHigh =
    model("", "rope(x, heads: 2, llama3_factor: 8.0, llama3_low_freq_factor: 4.0, llama3_orig_ctx: 8192)");
const std::string kNegativeFactor = model("", "rope(x, heads: 2, llama3_factor: -8.0, llama3_orig_ctx: 8192)");
const std::string kNoOrigCtx = model("", "rope(x, heads: 2, llama3_factor: 8.0)");
const std::string kNegativeOrigCtx = model("", "rope(x, heads: 2, llama3_orig_ctx: -1)");

const RejectCase kRopeScalingRejects[] = {
    {"FreqFactorsOfTheWrongLength", kFactorsTooLong.c_str(),
     "bad.tsr:9:15: error: rope: 'rf' [4] must be a vector [2] matching the 2 rotated pairs (dims / 2)\n"
     "  y = rope(x, rf, heads: 2)\n"
     "              ^\n"},
    {"FreqFactorsAsAMatrix", kFactorsMatrix.c_str(),
     "bad.tsr:9:15: error: rope: 'rf' [2, 1] must be a vector [2] matching the 2 rotated pairs (dims / 2)\n"
     "  y = rope(x, rf, heads: 2)\n"
     "              ^\n"},
    {"ThreeArguments", kThreeArguments.c_str(),
     "bad.tsr:9:7: error: 'rope' takes 1 to 2 arguments (x, [freq_factors]), but 3 were given\n"
     "  y = rope(x, rf, rf, heads: 2)\n"
     "      ^\n"},
    {"Llama3WithYarn", kWithYarn.c_str(),
     "bad.tsr:8:61: error: rope: llama3_factor and yarn_orig_ctx (YaRN) cannot be combined\n"
     "  y = rope(x, heads: 2, yarn_orig_ctx: 4096, llama3_factor: 8.0, llama3_orig_ctx: 8192)\n"
     "                                                            ^\n"},
    {"LowNotBelowHigh", kLowNotBelowHigh.c_str(),
     "bad.tsr:8:69: error: rope: llama3_low_freq_factor 4.0 must be below llama3_high_freq_factor 4.0\n"
     "  y = rope(x, heads: 2, llama3_factor: 8.0, llama3_low_freq_factor: 4.0, llama3_orig_ctx: 8192)\n"
     "                                                                    ^\n"},
    {"NegativeFactor", kNegativeFactor.c_str(),
     "bad.tsr:8:40: error: rope: llama3_factor must be 0 (off) or positive, not -8.0\n"
     "  y = rope(x, heads: 2, llama3_factor: -8.0, llama3_orig_ctx: 8192)\n"
     "                                       ^\n"},
    {"Llama3WithoutOrigCtx", kNoOrigCtx.c_str(),
     "bad.tsr:8:40: error: rope: llama3_factor needs llama3_orig_ctx, the original context length\n"
     "  y = rope(x, heads: 2, llama3_factor: 8.0)\n"
     "                                       ^\n"},
    {"NegativeOrigCtx", kNegativeOrigCtx.c_str(),
     "bad.tsr:8:42: error: rope: llama3_orig_ctx must be 0 or a positive token count\n"
     "  y = rope(x, heads: 2, llama3_orig_ctx: -1)\n"
     "                                         ^\n"},
};

class RopeScalingReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(RopeScalingReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, RopeScalingReject, ::testing::ValuesIn(kRopeScalingRejects), case_name);

// ---- models/llama.tsr and config.json ------------------------------------------------

// A one-layer Llama as a Hugging Face folder: hidden 8, 2 heads of 4 sharing 1 KV head.
FakeWeightFile hf_llama() {
  FakeWeightFile f("llama-hf", "hf");
  f.set_string("model_type", "llama");
  f.set_int("hidden_size", 8);
  f.set_int("num_hidden_layers", 1);
  f.set_int("num_attention_heads", 2);
  f.set_int("num_key_value_heads", 1);
  f.set_int("intermediate_size", 16);
  f.set_int("max_position_embeddings", 131072);
  f.add_tensor("model.embed_tokens.weight", {16, 8});
  f.add_tensor("model.norm.weight", {8});
  f.add_tensor("lm_head.weight", {16, 8});
  const std::string l = "model.layers.0.";
  f.add_tensor(l + "input_layernorm.weight", {8});
  f.add_tensor(l + "self_attn.q_proj.weight", {8, 8});
  f.add_tensor(l + "self_attn.k_proj.weight", {4, 8});
  f.add_tensor(l + "self_attn.v_proj.weight", {4, 8});
  f.add_tensor(l + "self_attn.o_proj.weight", {8, 8});
  f.add_tensor(l + "post_attention_layernorm.weight", {8});
  f.add_tensor(l + "mlp.gate_proj.weight", {16, 8});
  f.add_tensor(l + "mlp.up_proj.weight", {16, 8});
  f.add_tensor(l + "mlp.down_proj.weight", {8, 16});
  return f;
}

// Llama 3.1's rope settings under `prefix` (rope_parameters. or rope_scaling.).
void set_llama31_rope(FakeWeightFile& f, const std::string& prefix) {
  f.set_string(prefix + "rope_type", "llama3");
  f.set_float(prefix + "factor", 8.0);
  f.set_float(prefix + "low_freq_factor", 1.0);
  f.set_float(prefix + "high_freq_factor", 4.0);
  f.set_int(prefix + "original_max_position_embeddings", 8192);
}

// The params of the first rope node (layer 0's q) of llama.tsr compiled against `f`.
RopeParams llama_rope(const FakeWeightFile& f) {
  return std::get<RopeParams>(nodes_of(compile_llama(f).graph, OpKind::Rope).front()->params);
}

TEST(LlamaDefinition, ReadsLlama31ScalingFromRopeParameters) {
  FakeWeightFile f = hf_llama();
  f.set_float("rope_parameters.rope_theta", 500000.0);
  set_llama31_rope(f, "rope_parameters.");
  const RopeParams p = llama_rope(f);
  EXPECT_FLOAT_EQ(p.llama3_factor, 8.0f);
  EXPECT_FLOAT_EQ(p.llama3_low_freq_factor, 1.0f);
  EXPECT_FLOAT_EQ(p.llama3_high_freq_factor, 4.0f);
  EXPECT_EQ(p.n_ctx_orig, 8192);
  EXPECT_FLOAT_EQ(p.freq_scale, 1.0f);  // the factor is not also a linear scale
  EXPECT_FLOAT_EQ(p.theta, 500000.0f);
}

TEST(LlamaDefinition, ReadsLlama31ScalingFromTheOlderRopeScaling) {
  FakeWeightFile f = hf_llama();
  f.set_float("rope_theta", 500000.0);
  set_llama31_rope(f, "rope_scaling.");
  const RopeParams p = llama_rope(f);
  EXPECT_FLOAT_EQ(p.llama3_factor, 8.0f);
  EXPECT_EQ(p.n_ctx_orig, 8192);
  EXPECT_FLOAT_EQ(p.freq_scale, 1.0f);
}

TEST(LlamaDefinition, Llama31WithoutAnOriginalContextUsesTheContextLength) {
  FakeWeightFile f = hf_llama();
  set_llama31_rope(f, "rope_parameters.");
  f.remove_meta("rope_parameters.original_max_position_embeddings");
  EXPECT_EQ(llama_rope(f).n_ctx_orig, 131072);
}

TEST(LlamaDefinition, LinearScalingStaysLinear) {
  FakeWeightFile f = hf_llama();
  f.set_string("rope_parameters.rope_type", "linear");
  f.set_float("rope_parameters.factor", 2.0);
  const RopeParams p = llama_rope(f);
  EXPECT_FLOAT_EQ(p.freq_scale, 0.5f);
  EXPECT_EQ(p.llama3_factor, 0.0f);
  EXPECT_EQ(p.n_ctx_orig, 0);
}

TEST(LlamaDefinition, GgufFilesGetNoLlama3Scaling) {
  const RopeParams p = llama_rope(stories260k_fake());
  EXPECT_EQ(p.llama3_factor, 0.0f);
  EXPECT_EQ(p.llama3_low_freq_factor, 0.0f);
  EXPECT_FLOAT_EQ(p.freq_scale, 1.0f);
}

}  // namespace
}  // namespace tessera::test
