// Weights of a Hugging Face folder: the hf: name is read instead of the GGUF name,
// transposed("...") marks a Conv1D tensor stored [in, out], and a weight without an
// hf: name cannot be read from a folder.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

// proj is a GPT-2-style Conv1D: declared [d2, d] = [6, 4], stored [4, 6] by Hugging Face.
const char* kModel = R"(model tiny
hparams {
  d  = meta("tiny.width", hf: "hidden_size")
  v  = shape("emb", 0, hf: "model.embed.weight")
  d2 = 6
}
weights {
  emb  [v, d]  = "emb", hf: "model.embed.weight"
  proj [d2, d] = "proj", hf: transposed("model.proj.weight")
  back [d, d2] = "back", hf: "model.back.weight"
}
forward { logits = linear(outputs(linear(linear(embed(emb), proj), back)), emb) }
)";

FakeWeightFile hf_folder() {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tiny");
  f.set_int("hidden_size", 4);
  f.add_tensor("model.embed.weight", {8, 4});
  f.add_tensor("model.proj.weight", {4, 6}, DType::F16);
  f.add_tensor("model.back.weight", {4, 6});
  return f;
}

FakeWeightFile gguf_file() {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.set_uint("tiny.width", 4);
  f.add_tensor("emb", {8, 4});
  f.add_tensor("proj", {6, 4});
  f.add_tensor("back", {4, 6});
  return f;
}

TEST(HfWeightNames, AreTheFileNamesInAHfFolder) {
  const FakeWeightFile file = hf_folder();
  const Graph g = compile_text(kModel, &file).graph;
  EXPECT_EQ(find_tensor(g, "emb")->file_name, "model.embed.weight");
  EXPECT_EQ(find_tensor(g, "back")->file_name, "model.back.weight");
  EXPECT_FALSE(find_tensor(g, "back")->transposed);
}

TEST(HfWeightNames, TransposedMarksTheTensorAndKeepsTheDeclaredShape) {
  const FakeWeightFile file = hf_folder();
  const Graph g = compile_text(kModel, &file).graph;
  const GraphTensor* proj = find_tensor(g, "proj");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->file_name, "model.proj.weight");
  EXPECT_TRUE(proj->transposed);
  EXPECT_EQ(proj->shape, (Shape{6, 4}));  // [out, in], as linear() reads it
  EXPECT_EQ(proj->dtype, DType::F16);
}

TEST(HfWeightNames, AreIgnoredForAGgufFile) {
  const FakeWeightFile file = gguf_file();
  const Graph g = compile_text(kModel, &file).graph;
  const GraphTensor* proj = find_tensor(g, "proj");
  EXPECT_EQ(proj->file_name, "proj");
  EXPECT_FALSE(proj->transposed);
  EXPECT_EQ(proj->shape, (Shape{6, 4}));
}

TEST(HfWeightNames, AreIgnoredWithoutAWeightsFile) {
  const Graph g = compile_text(kModel, nullptr, {{"d", "4"}, {"v", "8"}}).graph;
  EXPECT_EQ(find_tensor(g, "proj")->file_name, "proj");
  EXPECT_FALSE(find_tensor(g, "proj")->transposed);
}

TEST(HfWeightNames, ExpandTheLayerIndex) {
  FakeWeightFile file("tiny-hf", "hf");
  file.add_tensor("model.embed.weight", {8, 4});
  for (int i = 0; i < 2; ++i) file.add_tensor("model.layers." + std::to_string(i) + ".norm.weight", {4});
  const Graph g = compile_text(R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "emb", hf: "model.embed.weight"
  layer i in 0 .. 2 {
    norm [d] = "blk.{i}.norm", hf: "model.layers.{i}.norm.weight"
  }
}
forward {
  x = embed(emb)
  for i in 0 .. 2 { x = rms_norm(x, norm[i]) }
  logits = linear(outputs(x), emb)
}
)",
                               &file)
                      .graph;
  EXPECT_EQ(find_tensor(g, "blk.1.norm")->file_name, "model.layers.1.norm.weight");
}

TEST(HfWeightNames, AWeightWithoutOneIsReadFromAGgufFile) {
  const std::string hf_name = ", hf: \"model.back.weight\"";
  std::string model = kModel;
  model.erase(model.find(hf_name), hf_name.size());
  const FakeWeightFile file = gguf_file();
  EXPECT_EQ(find_tensor(compile_text(model, &file).graph, "back")->file_name, "back");
}

TEST(HfWeightNames, TransposedTensorMustBeStoredInTheReversedShape) {
  FakeWeightFile file = hf_folder();
  file.remove_tensor("model.proj.weight");
  file.add_tensor("model.proj.weight", {6, 4});
  EXPECT_EQ(dsl_error(kModel, &file),
            "weight 'model.proj.weight' has shape [6, 4] in the file but the model declares [4, 6] (d2, d) "
            "transposed");
}

TEST(HfWeightNames, TensorMissingFromTheFolderIsReportedByItsHfName) {
  FakeWeightFile file = hf_folder();
  file.remove_tensor("model.back.weight");
  EXPECT_EQ(dsl_error(kModel, &file), "weight 'model.back.weight' is not in the weights file tiny-hf");
}

TEST(HfWeightNames, OnlyAMatrixCanBeTransposed) {
  FakeWeightFile file("tiny-hf", "hf");
  file.add_tensor("model.embed.weight", {8, 4});
  file.add_tensor("model.norm.weight", {4});
  EXPECT_EQ(dsl_error(R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb  [v, d] = "emb", hf: "model.embed.weight"
  norm [d]    = "norm", hf: transposed("model.norm.weight")
}
forward { logits = linear(outputs(rms_norm(embed(emb), norm)), emb) }
)",
                      &file),
            "only a matrix can be transposed, but 'model.norm.weight' has 1 dimensions");
}

}  // namespace
}  // namespace tessera::test
