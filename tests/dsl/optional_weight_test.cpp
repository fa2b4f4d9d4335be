// Optional weights (`else none`): a bias some checkpoints of a family have and others
// lack. Present, it is added; absent, an optional argument counts as left out; absent
// where an operand is required, the model is refused at that use.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

const char* kModel = R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "emb"
  w [d, d]   = "w"
  b [d]      = "b" else none
}
forward { logits = linear(outputs(linear(embed(emb), w, b)), emb) }
)";

// The whole diagnostic (file:line:col, message, source line, caret), or "accepted".
std::string diagnostic(const std::string& source, const WeightFile* weights) {
  try {
    compile_text(source, weights);
  } catch (const dsl::DslError& e) {
    return e.what();
  }
  return "accepted";
}

FakeWeightFile file(bool with_bias) {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {8, 4});
  f.add_tensor("w", {4, 4});
  if (with_bias) f.add_tensor("b", {4});
  return f;
}

TEST(OptionalWeight, PresentIsAdded) {
  const FakeWeightFile f = file(true);
  const CompiledModel m = compile_text(kModel, &f);
  EXPECT_EQ(op_sequence(m.graph), "get_rows matmul add get_rows matmul");
  EXPECT_NE(find_tensor(m.graph, "b"), nullptr);
}

TEST(OptionalWeight, AbsentLeavesTheOptionalArgumentOut) {
  const FakeWeightFile f = file(false);
  const CompiledModel m = compile_text(kModel, &f);
  EXPECT_EQ(op_sequence(m.graph), "get_rows matmul get_rows matmul");
  EXPECT_EQ(find_tensor(m.graph, "b"), nullptr);
}

TEST(OptionalWeight, WithoutAFileIsLeftOut) {  // so tessera init writes only what a model needs
  const CompiledModel m = compile_text(kModel);
  EXPECT_EQ(op_sequence(m.graph), "get_rows matmul get_rows matmul");
}

TEST(OptionalWeight, WithoutAnHfNameIsLeftOutOfAFolder) {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tiny");
  f.add_tensor("model.emb", {8, 4});
  f.add_tensor("model.w", {4, 4});
  f.add_tensor("b", {4});  // a folder tensor of the GGUF name is not read: b has no hf: name
  std::string model = kModel;
  model.replace(model.find("\"emb\""), 5, "\"emb\", hf: \"model.emb\"");
  model.replace(model.find("\"w\""), 3, "\"w\", hf: \"model.w\"");
  const CompiledModel m = compile_text(model, &f);
  EXPECT_EQ(op_sequence(m.graph), "get_rows matmul get_rows matmul");
}

TEST(OptionalWeight, AbsentAsARequiredOperandIsRefused) {
  std::string model = kModel;
  const std::string call = "linear(embed(emb), w, b)";
  model.replace(model.find(call), call.size(), "linear(embed(emb), w) + b");
  const FakeWeightFile f = file(false);
  EXPECT_EQ(diagnostic(model, &f),
            "test.tsr:8:59: error: weight 'b' ('b') is not in the weights file tiny.gguf; `else none` lets it be absent "
            "only where an optional argument takes it, such as the bias of linear\n"
            "forward { logits = linear(outputs(linear(embed(emb), w) + b), emb) }\n"
            "                                                          ^\n");
}

// Without a file nothing is known absent: the form of a model chosen without one (has()
// is 0) gets the optional weights it cannot run without, as models/phi2.tsr's separate
// q/k/v, optional to serve files with a fused attn_qkv.
TEST(OptionalWeight, WithoutAFileARequiredOperandIsMade) {
  std::string model = kModel;
  const std::string call = "linear(embed(emb), w, b)";
  model.replace(model.find(call), call.size(), "linear(embed(emb), w) + b");
  const CompiledModel m = compile_text(model);
  EXPECT_EQ(op_sequence(m.graph), "get_rows matmul add get_rows matmul");
  ASSERT_NE(find_tensor(m.graph, "b"), nullptr);
  EXPECT_EQ(find_tensor(m.graph, "b")->shape, (Shape{4}));
}

TEST(OptionalWeight, NoneIsAReservedName) {
  std::string model = kModel;
  model.replace(model.find("  b [d]"), 7, "  none [d]");
  model.replace(model.find("w, b)"), 5, "w, none)");
  EXPECT_EQ(diagnostic(model, nullptr),
            "test.tsr:6:3: error: 'none' is reserved: `else none` marks an optional weight\n"
            "  none [d]      = \"b\" else none\n"
            "  ^\n");
}

}  // namespace
}  // namespace tessera::test
