// Hyper-parameters of a Hugging Face folder: meta() and shape() read their hf: key or
// tensor there, "a|b" alternatives, the empty GGUF key, defaults, the predefined
// number hf and the attribute choices if(hf, ...) makes.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

// A model whose hparams section is `hparams` after d and v; emb is [v, d].
std::string model_with(const std::string& hparams) {
  return "model tiny\n"
         "hparams {\n"
         "  d = meta(\"tiny.width\", hf: \"hidden_size\")\n"
         "  v = shape(\"emb\", 0, hf: \"model.embed.weight\")\n" +
         hparams +
         "\n}\n"
         "weights { emb [v, d] = \"emb\", hf: \"model.embed.weight\" }\n"
         "forward { logits = linear(outputs(embed(emb)), emb) }\n";
}

FakeWeightFile hf_folder() {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tinyhf");
  f.set_int("hidden_size", 4);
  f.add_tensor("model.embed.weight", {8, 4});
  return f;
}

FakeWeightFile gguf_file() {
  FakeWeightFile f("tiny.gguf");
  f.set_uint("tiny.width", 6);
  f.add_tensor("emb", {10, 6});
  return f;
}

HParam hparam(const CompiledModel& m, const std::string& name) {
  const HParam* h = m.find_hparam(name);
  if (!h) throw std::runtime_error("no hyper-parameter " + name);
  return *h;
}

TEST(HfHParams, MetaAndShapeReadTheHfKeyAndTensorInAHfFolder) {
  const FakeWeightFile file = hf_folder();
  const CompiledModel m = compile_text(model_with(""), &file);
  EXPECT_EQ(hparam(m, "d").value, 4);
  EXPECT_TRUE(hparam(m, "d").is_integer);
  EXPECT_EQ(hparam(m, "v").value, 8);
}

TEST(HfHParams, MetaAndShapeReadTheGgufKeyAndTensorInAGgufFile) {
  const FakeWeightFile file = gguf_file();
  const CompiledModel m = compile_text(model_with(""), &file);
  EXPECT_EQ(hparam(m, "d").value, 6);
  EXPECT_EQ(hparam(m, "v").value, 10);
}

TEST(HfHParams, RecordBothKeysOfAMetaDefinition) {
  const FakeWeightFile file = hf_folder();
  const CompiledModel m = compile_text(model_with(""), &file);
  EXPECT_EQ(hparam(m, "d").meta_key, "tiny.width");
  EXPECT_EQ(hparam(m, "d").hf_key, "hidden_size");
  EXPECT_EQ(hparam(m, "v").hf_key, "");  // shape(), not meta()
}

TEST(HfHParams, ArchIsTheModelTypeOfAHfFolder) {
  const FakeWeightFile file = hf_folder();
  EXPECT_EQ(compile_text(model_with(""), &file).arch, "tinyhf");
}

TEST(HfHParams, AlternativesTakeTheFirstKeyTheFolderHas) {
  FakeWeightFile file = hf_folder();
  file.set_float("rope_theta", 500000.0);
  const std::string model = model_with("  theta = meta(\"tiny.rope.freq_base\", 10000.0, hf: \"rope_parameters.rope_theta|rope_theta\")");
  EXPECT_EQ(hparam(compile_text(model, &file), "theta").value, 500000.0);
  file.set_float("rope_parameters.rope_theta", 1000000.0);
  EXPECT_EQ(hparam(compile_text(model, &file), "theta").value, 1000000.0);
}

TEST(HfHParams, AlternativesFallBackToTheDefaultWhenNoneIsPresent) {
  const FakeWeightFile file = hf_folder();
  const CompiledModel m =
      compile_text(model_with("  theta = meta(\"tiny.rope.freq_base\", 10000.0, hf: \"a.rope_theta|rope_theta\")"), &file);
  EXPECT_EQ(hparam(m, "theta").value, 10000.0);
  EXPECT_EQ(hparam(m, "theta").hf_key, "a.rope_theta");  // the first alternative names it
}

TEST(HfHParams, ShapeAlternativesTakeTheFirstTensorTheFolderHas) {
  FakeWeightFile file = hf_folder();
  file.add_tensor("transformer.wpe.weight", {32, 4});
  const CompiledModel m =
      compile_text(model_with("  n_pos = shape(\"pos\", 0, 16, hf: \"model.wpe.weight|transformer.wpe.weight\")"), &file);
  EXPECT_EQ(hparam(m, "n_pos").value, 32);
}

TEST(HfHParams, AnEmptyGgufKeyAlwaysUsesTheDefaultInAGgufFile) {
  FakeWeightFile file = gguf_file();
  file.set_uint("", 99);  // even a file with an empty key: "" means none
  const CompiledModel m = compile_text(model_with("  scalar = meta(\"\", 256, hf: \"query_pre_attn_scalar\")"), &file);
  EXPECT_EQ(hparam(m, "scalar").value, 256);
}

TEST(HfHParams, AnEmptyGgufKeyStillReadsTheHfKeyInAHfFolder) {
  FakeWeightFile file = hf_folder();
  file.set_int("query_pre_attn_scalar", 144);
  const CompiledModel m = compile_text(model_with("  scalar = meta(\"\", 256, hf: \"query_pre_attn_scalar\")"), &file);
  EXPECT_EQ(hparam(m, "scalar").value, 144);
}

TEST(HfHParams, MetaWithoutAnHfKeyUsesItsDefaultInAHfFolder) {
  FakeWeightFile file = hf_folder();
  file.set_uint("tiny.rope.dimension_count", 2);  // a GGUF key is not read from a folder
  const CompiledModel m = compile_text(model_with("  n_rot = meta(\"tiny.rope.dimension_count\", d)"), &file);
  EXPECT_EQ(hparam(m, "n_rot").value, 4);
}

TEST(HfHParams, MetaWithoutAnHfKeyOrADefaultFailsInAHfFolder) {
  const FakeWeightFile file = hf_folder();
  EXPECT_EQ(dsl_error(model_with("  n_rot = meta(\"tiny.rope.dimension_count\")"), &file),
            "hyper-parameter 'n_rot' has no value: tiny-hf is a Hugging Face folder and meta() gives no hf: "
            "key and no default; add hf: \"key\" or pass --set n_rot=N");
}

TEST(HfHParams, PredefinedHfIsOneForAHfFolder) {
  const FakeWeightFile file = hf_folder();
  EXPECT_EQ(hparam(compile_text(model_with("  from_hf = hf"), &file), "from_hf").value, 1);
}

TEST(HfHParams, PredefinedHfIsZeroForAGgufFile) {
  const FakeWeightFile file = gguf_file();
  EXPECT_EQ(hparam(compile_text(model_with("  from_hf = hf"), &file), "from_hf").value, 0);
}

// Hugging Face checkpoints rotate split halves; GGUF files store q/k permuted for pairs.
const char* kPairingModel = R"(model tiny
hparams {
  d = meta("tiny.width", hf: "hidden_size")
  v = shape("emb", 0, hf: "model.embed.weight")
}
weights { emb [v, d] = "emb", hf: "model.embed.weight" }
forward {
  x = rope(embed(emb), heads: 2, pairing: if(hf, neox, interleaved))
  logits = linear(outputs(x), emb)
}
)";

TEST(IfHf, PicksNeoxPairingForAHfFolder) {
  const FakeWeightFile file = hf_folder();
  EXPECT_EQ(only_params<RopeParams>(compile_text(kPairingModel, &file).graph, OpKind::Rope).pairing, TSR_ROPE_NEOX);
}

TEST(IfHf, PicksInterleavedPairingForAGgufFile) {
  const FakeWeightFile file = gguf_file();
  EXPECT_EQ(only_params<RopeParams>(compile_text(kPairingModel, &file).graph, OpKind::Rope).pairing,
            TSR_ROPE_INTERLEAVED);
}

// Gemma: GGUF converters fold the 1 into the norm weights; Hugging Face stores w.
const char* kGainModel = R"(model tiny
hparams {
  d = meta("tiny.width", hf: "hidden_size")
  v = shape("emb", 0, hf: "model.embed.weight")
}
weights {
  emb  [v, d] = "emb", hf: "model.embed.weight"
  norm [d]    = "norm", hf: "model.norm.weight"
}
forward { logits = linear(outputs(rms_norm(embed(emb), norm, gain: if(hf, one_plus_weight, weight))), emb) }
)";

TEST(IfHf, PicksTheNormGainByTheFileFormat) {
  FakeWeightFile hf = hf_folder();
  hf.add_tensor("model.norm.weight", {4});
  FakeWeightFile gguf = gguf_file();
  gguf.add_tensor("norm", {6});
  EXPECT_EQ(only_params<NormParams>(compile_text(kGainModel, &hf).graph, OpKind::RmsNorm).weight_plus_one, 1);
  EXPECT_EQ(only_params<NormParams>(compile_text(kGainModel, &gguf).graph, OpKind::RmsNorm).weight_plus_one, 0);
}

}  // namespace
}  // namespace tessera::test
