// has("name", hf: "name"): 1 when the weights file holds the tensor, else 0. In
// hyper-parameters, and per layer in the forward section, where it lets one definition
// read fused and separate q/k/v layouts.
#include <gtest/gtest.h>

#include "dsl/forward.h"
#include "dsl/hparams.h"
#include "dsl/lowering.h"
#include "dsl/weight_binding.h"
#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

// The hyper-parameter `name` of a model whose hparams section holds d = 4, v = 8 and
// `hparams`, compiled against `weights` (which must hold emb [8, 4], as "emb" or, in a
// folder, "model.emb").
double evaluate(const std::string& hparams, const WeightFile* weights = nullptr) {
  const CompiledModel m = compile_text("model tiny\nhparams {\n  d = 4\n  v = 8\n" + hparams +
                                       "\n}\n"
                                       "weights { emb [v, d] = \"emb\", hf: \"model.emb\" }\n"
                                       "forward { logits = linear(outputs(embed(emb)), emb) }\n",
                                       weights);
  return m.find_hparam("r")->value;
}

FakeWeightFile gguf() {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {8, 4});
  f.add_tensor("blk.0.attn_qkv.weight", {12, 4});
  return f;
}

FakeWeightFile folder() {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tiny");
  f.add_tensor("model.emb", {8, 4});
  f.add_tensor("model.layers.0.qkv.weight", {12, 4});
  f.add_tensor("blk.0.attn_qkv.weight", {12, 4});  // a GGUF name: a folder's tensors go by their hf: names
  return f;
}

TEST(HasInHparams, IsOneForATensorOfTheFile) {
  const FakeWeightFile f = gguf();
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_qkv.weight\")", &f), 1);
}

TEST(HasInHparams, IsZeroForATensorTheFileLacks) {
  const FakeWeightFile f = gguf();
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_q.weight\")", &f), 0);
}

TEST(HasInHparams, IsZeroWithoutAWeightsFile) {  // as optional weights are absent then
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_qkv.weight\")"), 0);
}

TEST(HasInHparams, FillsInPlaceholders) {
  const FakeWeightFile f = gguf();
  EXPECT_EQ(evaluate("first = 0\n  r = has(\"blk.{first}.attn_qkv.weight\")", &f), 1);
}

TEST(HasInHparams, ReadsTheHfNameInAFolder) {
  const FakeWeightFile f = folder();
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_qkv.weight\", hf: \"model.layers.0.qkv.weight\")", &f), 1);
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_qkv.weight\", hf: \"model.layers.0.q.weight\")", &f), 0);
}

TEST(HasInHparams, IsZeroInAFolderWithoutAnHfName) {  // as a weight without hf: is absent there
  const FakeWeightFile f = folder();
  EXPECT_EQ(evaluate("r = has(\"blk.0.attn_qkv.weight\")", &f), 0);
}

TEST(HasInHparams, TakesAlternatives) {
  const FakeWeightFile f = folder();
  EXPECT_EQ(evaluate("r = has(\"\", hf: \"model.layers.0.q.weight|model.layers.0.qkv.weight\")", &f), 1);
}

TEST(HasInHparams, ChoosesSizes) {
  const FakeWeightFile f = gguf();
  EXPECT_EQ(evaluate("r = if(has(\"blk.0.attn_qkv.weight\"), 3 * d, d)", &f), 12);
}

// compile_model's steps, with the forward section given the compile options, whose
// weights file has() reads there.
Graph compile_forward(const std::string& source, const WeightFile* weights) {
  const auto model = dsl::parse_model(source, "test.tsr");
  dsl::CompileOptions options;
  options.weights = weights;
  const dsl::HParamValues hparams = dsl::evaluate_hparams(*model, options);
  const dsl::WeightBindings bindings = dsl::bind_weights(*model, hparams, options);
  Graph graph;
  dsl::GraphBuilder builder(graph, model->source, DType::F32);
  dsl::ForwardCompiler forward(*model, hparams, bindings, builder, options);
  forward.run();
  return graph;
}

// Layers with a fused q/k/v projection and layers with three: one definition, both
// optional, each layer lowering the one its file has.
const char* kFusedOrSeparate = R"(model tiny
hparams { d = 4  v = 8  n = 2 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n {
    w_qkv [3 * d, d] = "blk.{i}.attn_qkv.weight" else none
    wq [d, d]        = "blk.{i}.attn_q.weight" else none
    wk [d, d]        = "blk.{i}.attn_k.weight" else none
  }
}
forward {
  x = embed(emb)
  for i in 0 .. n {
    fused = has("blk.{i}.attn_qkv.weight")
    q = if(fused, slice(linear(x, w_qkv[i]), 0, d), linear(x, wq[i]))
    k = if(fused, slice(linear(x, w_qkv[i]), d, d), linear(x, wk[i]))
    x = x + q * k
  }
  logits = linear(outputs(x), emb)
}
)";

TEST(HasInForward, ChoosesEachLayersLayout) {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {8, 4});
  f.add_tensor("blk.0.attn_q.weight", {4, 4});
  f.add_tensor("blk.0.attn_k.weight", {4, 4});
  f.add_tensor("blk.1.attn_qkv.weight", {12, 4});
  const Graph g = compile_forward(kFusedOrSeparate, &f);
  EXPECT_EQ(op_sequence(g),
            "get_rows matmul matmul mul add "                  // layer 0: wq, wk
            "matmul slice matmul slice mul add "               // layer 1: w_qkv twice
            "get_rows matmul");
  std::vector<std::string> read;
  for (const GraphNode* n : nodes_of(g, OpKind::MatMul)) read.push_back(g.tensor(n->inputs[1]).name);
  EXPECT_EQ(read, (std::vector<std::string>{"blk.0.wq", "blk.0.wk", "blk.1.w_qkv", "blk.1.w_qkv", "emb"}));
}

TEST(HasInForward, FillsInLoopVariablesAndNamedNumbers) {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {8, 4});
  f.add_tensor("blk.1.extra", {4});
  const Graph g = compile_forward(R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb)
  for i in 0 .. 3 {
    next = i + 1
    x = x * (has("blk.{i}.extra") + 2 * has("blk.{next}.extra") + 10)
  }
  logits = linear(outputs(x), emb)
}
)",
                                  &f);
  std::vector<float> scales;
  for (const GraphNode* n : nodes_of(g, OpKind::Scale)) scales.push_back(std::get<ScaleParams>(n->params).scale);
  EXPECT_EQ(scales, (std::vector<float>{12, 11, 10}));
}

}  // namespace
}  // namespace tessera::test
