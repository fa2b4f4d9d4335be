// A weight whose hf: name has {*}: one tensor of the Hugging Face folder per index of
// its first dimension (each expert's matrix, as MoE checkpoints store them), read as one
// stacked weight; the folder's parts count as read; a missing or unlike part, and {*}
// on a vector, are refused.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

// Three experts of [6, 4], two chosen per token by a router [3, 4].
const char* kModel = R"(model tiny
hparams { d = 4  v = 8  e = 3 }
weights {
  emb    [v, d]    = "emb", hf: "model.embed.weight"
  router [e, d]    = "router", hf: "model.router.weight"
  exps   [e, 6, d] = "exps", hf: "model.experts.{*}.up.weight"
  down   [e, d, 6] = "down", hf: "model.experts.{*}.down.weight"
}
forward {
  x = embed(emb)
  r = moe_route(linear(x, router), k: 2)
  logits = linear(outputs(moe_combine(moe_linear(moe_linear(x, exps, r), down, r), r)), emb)
}
)";

FakeWeightFile folder() {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tiny");
  f.add_tensor("model.embed.weight", {8, 4});
  f.add_tensor("model.router.weight", {3, 4});
  for (int i = 0; i < 3; ++i) {
    f.add_tensor("model.experts." + std::to_string(i) + ".up.weight", {6, 4});
    f.add_tensor("model.experts." + std::to_string(i) + ".down.weight", {4, 6});
  }
  return f;
}

TEST(StackedWeight, ReadsOneFolderTensorPerIndexAsOneWeight) {
  const FakeWeightFile file = folder();
  const CompiledModel m = compile_text(kModel, &file);
  const GraphTensor* exps = find_tensor(m.graph, "exps");
  ASSERT_NE(exps, nullptr);
  EXPECT_EQ(exps->file_name, "model.experts.{*}.up.weight");
  EXPECT_EQ(exps->shape, (Shape{3, 6, 4}));
  ASSERT_NE(file.find_tensor("model.experts.{*}.up.weight"), nullptr);
  EXPECT_EQ(file.find_tensor("model.experts.{*}.up.weight")->shape, (std::vector<int64_t>{3, 6, 4}));
}

TEST(StackedWeight, ItsPartsCountAsRead) {
  const FakeWeightFile file = folder();
  const CompiledModel m = compile_text(kModel, &file);
  EXPECT_EQ(m.coverage.used_tensors, 8);
  EXPECT_EQ(m.coverage.file_tensors, 8);
  EXPECT_TRUE(m.coverage.unused_tensors.empty());
}

TEST(StackedWeight, AMissingPartIsRefusedNamingIt) {
  FakeWeightFile file = folder();
  file.remove_tensor("model.experts.2.up.weight");
  EXPECT_EQ(dsl_error(kModel, &file),
            "tiny-hf: no tensor 'model.experts.2.up.weight' (part 2 of 3 of 'model.experts.{*}.up.weight')");
}

TEST(StackedWeight, PartsOfDifferentShapesAreRefused) {
  FakeWeightFile file = folder();
  file.remove_tensor("model.experts.1.down.weight");
  file.add_tensor("model.experts.1.down.weight", {4, 5});
  EXPECT_EQ(dsl_error(kModel, &file),
            "tiny-hf: tensor 'model.experts.1.down.weight' is f32 [4, 5] but 'model.experts.0.down.weight' is "
            "f32 [4, 6]: they cannot be stacked");
}

TEST(StackedWeight, IsOnlyForWeightsOfTwoOrMoreDimensions) {
  const std::string model = "model tiny\nhparams { d = 4  v = 8 }\n"
                            "weights {\n  emb [v, d] = \"emb\", hf: \"model.embed.weight\"\n"
                            "  g [d] = \"g\", hf: \"model.g.{*}\"\n}\n"
                            "forward { logits = linear(outputs(rms_norm(embed(emb), g)), emb) }\n";
  EXPECT_EQ(dsl_error(model),
            "{*} (one tensor of the folder per index of the first dimension, stacked) is for the hf: name of a "
            "weight of 2 or more dimensions");
}

}  // namespace
}  // namespace tessera::test
