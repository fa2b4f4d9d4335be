// Hyper-parameters: where each value comes from (file metadata, tensor shapes,
// defaults, --set overrides), integer/float semantics, meta_key, and their errors.
#include <gtest/gtest.h>

#include "llama_fixture.h"

namespace tessera::test {
namespace {

const HParam& hparam(const CompiledModel& m, const std::string& name) {
  const HParam* h = m.find_hparam(name);
  if (!h) throw std::runtime_error("no hyper-parameter " + name);
  return *h;
}

// The message of the tessera::Error that compiling `model` with `options` throws.
std::string compile_error(const dsl::ModelDef& model, const dsl::CompileOptions& options) {
  try {
    dsl::compile_model(model, options);
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(HParams, ComeFromTheFileMetadataAndTensorShapes) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  EXPECT_EQ(hparam(m, "d_model").value, 64);
  EXPECT_TRUE(hparam(m, "d_model").is_integer);
  EXPECT_EQ(hparam(m, "n_kv_heads").value, 4);
  EXPECT_EQ(hparam(m, "n_vocab").value, 512);  // shape("token_embd.weight", 0)
  EXPECT_EQ(hparam(m, "head_dim").value, 8);
  EXPECT_EQ(hparam(m, "n_ctx").value, 128);
  EXPECT_DOUBLE_EQ(hparam(m, "norm_eps").value, 1e-5);
  EXPECT_FALSE(hparam(m, "norm_eps").is_integer);
}

TEST(HParams, UseTheDefaultWhenTheFileLacksTheKey) {
  const FakeWeightFile file = stories260k_fake();  // has no rope.freq_base
  const CompiledModel m = compile_llama(file);
  EXPECT_EQ(hparam(m, "rope_theta").value, 10000.0);
  EXPECT_FALSE(hparam(m, "rope_theta").is_integer);
  EXPECT_EQ(hparam(m, "rope_theta").meta_key, "llama.rope.freq_base");
}

TEST(HParams, RecordTheResolvedMetadataKeyOfEachMetaDefinition) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  EXPECT_EQ(hparam(m, "d_model").meta_key, "llama.embedding_length");
  EXPECT_EQ(hparam(m, "n_kv_heads").meta_key, "llama.attention.head_count_kv");
  EXPECT_EQ(hparam(m, "n_vocab").meta_key, "");
  EXPECT_EQ(hparam(m, "head_dim").meta_key, "llama.attention.key_length");  // the file lacks it: a default
}

TEST(HParams, ResolveArchToTheFilesArchitecture) {
  FakeWeightFile file("other.gguf");
  file.set_string("general.architecture", "tinyarch");
  file.set_uint("tinyarch.width", 4);
  file.add_tensor("emb", {8, 4});
  const auto model = dsl::parse_model(R"(model tiny
hparams { d = meta("{arch}.width")  v = shape("emb", 0) }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
                                      "tiny.tsr");
  dsl::CompileOptions options;
  options.weights = &file;
  const CompiledModel m = dsl::compile_model(*model, options);
  EXPECT_EQ(m.arch, "tinyarch");
  EXPECT_EQ(hparam(m, "d").meta_key, "tinyarch.width");
  EXPECT_EQ(m.n_vocab, 8);
}

TEST(HParams, ResolveArchToTheModelNameWithoutAFile) {
  const CompiledModel m = compile_tinyllama();
  EXPECT_EQ(m.arch, "llama");
  EXPECT_EQ(hparam(m, "n_layers").meta_key, "llama.block_count");
}

TEST(HParams, TakeOverridesBeforeTheFile) {
  const FakeWeightFile file = stories260k_fake();
  dsl::CompileOptions options;
  options.weights = &file;
  options.overrides = {{"n_layers", "2"}, {"rope_theta", "500000.0"}};
  const CompiledModel m = dsl::compile_model(*llama_definition(), options);
  EXPECT_EQ(m.n_layers, 2);
  EXPECT_EQ(hparam(m, "rope_theta").value, 500000.0);
  EXPECT_FALSE(hparam(m, "rope_theta").is_integer);
  EXPECT_EQ(hparam(m, "n_layers").meta_key, "llama.block_count");
}

TEST(HParams, UseOverridesAndDefaultsWithoutAFile) {
  const CompiledModel m = compile_tinyllama();
  EXPECT_EQ(hparam(m, "head_dim").value, 64);
  EXPECT_EQ(hparam(m, "n_rot").value, 64);  // defaults to head_dim
  EXPECT_EQ(hparam(m, "n_ctx").value, 2048);
  EXPECT_EQ(m.n_layers, 22);
  EXPECT_EQ(m.n_vocab, 32000);
}

TEST(HParams, KeepIntegerDivisionExactAndLeftAssociative) {
  const auto model = dsl::parse_model(R"(model tiny
hparams { d = 4  v = 8  a = 8 / 4 / 2  b = 3 / 2.0  c = 2 - 3 - 4  r = sqrt(16) }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
                                      "tiny.tsr");
  const CompiledModel m = dsl::compile_model(*model, dsl::CompileOptions{});
  EXPECT_EQ(hparam(m, "a").value, 1);
  EXPECT_TRUE(hparam(m, "a").is_integer);
  EXPECT_EQ(hparam(m, "b").value, 1.5);
  EXPECT_FALSE(hparam(m, "b").is_integer);
  EXPECT_EQ(hparam(m, "c").value, -5);
  EXPECT_EQ(hparam(m, "r").value, 4.0);
  EXPECT_FALSE(hparam(m, "r").is_integer);
}

TEST(HParams, RefuseAnOverrideOfAnUnknownNameWithAHint) {
  dsl::CompileOptions options;
  options.overrides = {{"n_layer", "2"}};
  EXPECT_EQ(compile_error(*llama_definition(), options),
            "--set n_layer=2: the model " + source_path("models/llama.tsr") +
                " has no hyper-parameter 'n_layer'; did you mean 'n_layers'?");
}

TEST(HParams, RefuseAnOverrideThatIsNotANumber) {
  dsl::CompileOptions options;
  options.overrides = tinyllama_overrides();
  options.overrides["d_model"] = "wide";
  EXPECT_EQ(compile_error(*llama_definition(), options),
            "--set d_model=wide: 'wide' is not a number (model " + source_path("models/llama.tsr") + ")");
}

TEST(HParams, RefuseAMissingValueWithoutAFileNamingTheKeyAndTheFix) {
  try {
    dsl::compile_model(*llama_definition(), dsl::CompileOptions{});
    FAIL() << "compiled without any hyper-parameter value";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "hyper-parameter 'd_model' has no value: it reads meta(\"llama.embedding_length\") and no "
              "weights file was given; pass -m FILE or --set d_model=N");
  }
}

TEST(HParams, RefuseAShapeReadWithoutAFile) {
  dsl::CompileOptions options;
  options.overrides = tinyllama_overrides();
  options.overrides.erase("n_vocab");
  try {
    dsl::compile_model(*llama_definition(), options);
    FAIL() << "compiled without n_vocab";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "hyper-parameter 'n_vocab' has no value: it reads shape(\"token_embd.weight\", 0) and no "
              "weights file was given; pass -m FILE or --set n_vocab=N");
  }
}

TEST(HParams, RefuseAKeyTheFileLacksWithoutDefault) {
  FakeWeightFile file = stories260k_fake();
  file.remove_meta("llama.feed_forward_length");
  try {
    compile_llama(file);
    FAIL() << "compiled without d_ff";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "hyper-parameter 'd_ff' has no value: the weights file has no metadata "
              "'llama.feed_forward_length' and meta() gives no default; pass --set d_ff=N");
    EXPECT_EQ(e.line(), llama_line_containing("d_ff       ="));
  }
}

TEST(HParams, RefuseMetadataThatIsNotANumber) {
  FakeWeightFile file = stories260k_fake();
  file.set_string("llama.block_count", "five");
  try {
    compile_llama(file);
    FAIL() << "read a string as a number";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(), "stories260K.gguf: llama.block_count is a string, \"five\", but 'n_layers' needs a whole number");
  }
}

// What `tessera init` relies on: a file holding every meta_key with its value and
// every weight with its shape compiles back to the same hyper-parameters.
TEST(HParams, ReadBackFromAFileWrittenWithTheirMetaKeys) {
  const CompiledModel first = compile_tinyllama();
  FakeWeightFile file("init.gguf");
  file.set_string("general.architecture", first.arch);
  for (const HParam& h : first.hparams) {
    if (h.meta_key.empty()) continue;
    if (h.is_integer) file.set_uint(h.meta_key, static_cast<uint64_t>(h.value));
    else file.set_float(h.meta_key, h.value);
  }
  for (const GraphTensor& t : first.graph.tensors()) {
    if (t.role == TensorRole::Weight) file.add_tensor(t.file_name, t.shape, t.dtype);
  }
  const CompiledModel second = compile_llama(file);
  ASSERT_EQ(second.hparams.size(), first.hparams.size());
  for (size_t i = 0; i < first.hparams.size(); ++i) {
    EXPECT_EQ(second.hparams[i].name, first.hparams[i].name);
    EXPECT_EQ(second.hparams[i].value, first.hparams[i].value) << first.hparams[i].name;
    EXPECT_EQ(second.hparams[i].is_integer, first.hparams[i].is_integer) << first.hparams[i].name;
  }
  EXPECT_EQ(second.graph.nodes().size(), first.graph.nodes().size());
}

}  // namespace
}  // namespace tessera::test
