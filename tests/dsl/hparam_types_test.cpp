// The kinds of number meta() reads (a whole number, a number, a flag: its default's
// kind), config.json nulls and null:, --set of each kind, and the requirements of a
// definition against a file: each mistake of the file an error naming the file and the
// key, never a default or a rounded value.
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "dsl/model_definition.h"

namespace tessera::test {
namespace {

// Counts, a real, a flag and a null-able key, read from GGUF keys or config.json; the
// flag chooses between two forms of the layer.
const char* const kModel = R"(model tiny
hparams {
  d        = meta("{arch}.embedding_length", hf: "hidden_size")
  n_layers = meta("{arch}.block_count", hf: "num_hidden_layers")
  heads    = meta("{arch}.attention.head_count", hf: "num_attention_heads")
  kv       = meta("{arch}.attention.head_count_kv", heads, hf: "num_key_value_heads")
  eps      = meta("{arch}.attention.layer_norm_rms_epsilon", 1e-5, hf: "rms_norm_eps")
  window   = meta("{arch}.attention.sliding_window", 0, hf: "sliding_window", null: 0)
  parallel = meta("{arch}.use_parallel_residual", true, hf: "use_parallel_residual")
  n_ctx    = meta("{arch}.context_length", 0, hf: "max_position_embeddings")
  v        = shape("token_embd.weight", 0, hf: "model.embed_tokens.weight")
  require n_layers >= 1, heads >= 1, kv >= 1 && heads % kv == 0
  require eps > 0, window >= 0, n_ctx >= 1
}
weights {
  emb [v, d] = "token_embd.weight", hf: "model.embed_tokens.weight"
  layer i in 0 .. n_layers { w [d, d] = "blk.{i}.w", hf: "layers.{i}.w" }
}
forward {
  x = embed(emb)
  for i in 0 .. n_layers { x = if(parallel, x + linear(x, w[i]), linear(x, w[i])) }
  logits = linear(outputs(x), emb)
}
)";

FakeWeightFile gguf_file() {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.set_uint("tiny.embedding_length", 4);
  f.set_uint("tiny.block_count", 2);
  f.set_uint("tiny.attention.head_count", 4);
  f.set_uint("tiny.attention.head_count_kv", 2);
  f.set_float("tiny.attention.layer_norm_rms_epsilon", 1e-6);
  f.set_uint("tiny.context_length", 64);
  f.add_tensor("token_embd.weight", {8, 4});
  for (int i = 0; i < 2; ++i) f.add_tensor("blk." + std::to_string(i) + ".w", {4, 4});
  return f;
}

FakeWeightFile hf_folder() {
  FakeWeightFile f("tiny-hf", "hf");
  f.set_string("model_type", "tiny");
  f.set_int("hidden_size", 4);
  f.set_int("num_hidden_layers", 2);
  f.set_int("num_attention_heads", 4);
  f.set_int("num_key_value_heads", 2);
  f.set_double("rms_norm_eps", 1e-6);
  f.set_int("max_position_embeddings", 64);
  f.set_bool("use_parallel_residual", true);
  f.add_tensor("model.embed_tokens.weight", {8, 4});
  for (int i = 0; i < 2; ++i) f.add_tensor("layers." + std::to_string(i) + ".w", {4, 4});
  return f;
}

HParam hparam(const CompiledModel& m, const std::string& name) {
  const HParam* h = m.find_hparam(name);
  if (!h) throw std::runtime_error("no hyper-parameter " + name);
  return *h;
}

CompiledModel compile(const FakeWeightFile& file, std::map<std::string, std::string> overrides = {}) {
  dsl::CompileOptions options;
  options.weights = &file;
  options.overrides = std::move(overrides);
  return dsl::compile_model(*dsl::parse_model(kModel, "bad.tsr"), options);
}

// What compiling kModel against `file` with `overrides` throws, or "accepted".
std::string error_of(const FakeWeightFile& file, std::map<std::string, std::string> overrides = {}) {
  try {
    compile(file, std::move(overrides));
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "accepted";
}

// ---- what each kind accepts ------------------------------------------------------------

TEST(HParamTypes, BothFormatsCompile) {
  EXPECT_EQ(hparam(compile(gguf_file()), "n_layers").value, 2);
  EXPECT_EQ(hparam(compile(hf_folder()), "n_layers").value, 2);
}

TEST(HParamTypes, AFlagReadsTrueAndFalse) {
  FakeWeightFile folder = hf_folder();
  EXPECT_EQ(hparam(compile(folder), "parallel").value, 1);
  const size_t parallel_nodes = compile(folder).graph.nodes().size();
  folder.set_bool("use_parallel_residual", false);
  EXPECT_EQ(hparam(compile(folder), "parallel").value, 0);
  EXPECT_EQ(compile(folder).graph.nodes().size(), parallel_nodes - 2);  // no residual add per layer
}

TEST(HParamTypes, AFlagTakesTheIntegersZeroAndOne) {
  FakeWeightFile file = gguf_file();
  file.set_uint("tiny.use_parallel_residual", 0);
  EXPECT_EQ(hparam(compile(file), "parallel").value, 0);
}

TEST(HParamTypes, AFlagWithoutTheKeyTakesItsDefault) {
  EXPECT_EQ(hparam(compile(gguf_file()), "parallel").value, 1);
}

TEST(HParamTypes, AWholeFloatIsACount) {
  FakeWeightFile folder = hf_folder();
  folder.set_double("num_hidden_layers", 2.0);
  const HParam n = hparam(compile(folder), "n_layers");
  EXPECT_EQ(n.value, 2);
  EXPECT_TRUE(n.is_integer);
}

TEST(HParamTypes, AnIntegerWhereANumberIsMeantBecomesAFloat) {
  FakeWeightFile folder = hf_folder();
  folder.set_int("rms_norm_eps", 1);
  const HParam eps = hparam(compile(folder), "eps");
  EXPECT_EQ(eps.value, 1.0);
  EXPECT_FALSE(eps.is_integer);
}

TEST(HParamTypes, ANullTakesTheValueNullGives) {
  FakeWeightFile folder = hf_folder();
  folder.set_null("sliding_window");
  EXPECT_EQ(hparam(compile(folder), "window").value, 0);
}

TEST(HParamTypes, OverridesTakeTheKindOfTheirDefinition) {
  const CompiledModel m = compile(gguf_file(), {{"parallel", "false"}, {"eps", "1"}, {"n_layers", "1"}});
  EXPECT_EQ(hparam(m, "parallel").value, 0);
  EXPECT_FALSE(hparam(m, "eps").is_integer);
  EXPECT_EQ(hparam(m, "n_layers").value, 1);
}

TEST(HParamTypes, AnOverrideOfTheWrongKindIsRefused) {
  EXPECT_EQ(error_of(gguf_file(), {{"n_layers", "2.5"}}), "--set n_layers=2.5: 'n_layers' needs a whole number (model bad.tsr)");
  EXPECT_EQ(error_of(gguf_file(), {{"n_layers", "true"}}), "--set n_layers=true: 'n_layers' needs a whole number (model bad.tsr)");
  EXPECT_EQ(error_of(gguf_file(), {{"parallel", "2"}}), "--set parallel=2: 'parallel' needs true or false (model bad.tsr)");
  EXPECT_EQ(error_of(gguf_file(), {{"eps", "true"}}), "--set eps=true: 'eps' needs a number (model bad.tsr)");
}

TEST(HParamTypes, AnArchitectureThatIsNoStringIsAnErrorNotTheModelName) {
  FakeWeightFile file = gguf_file();
  file.set_uint("general.architecture", 7);
  EXPECT_EQ(error_of(file), "tiny.gguf: metadata 'general.architecture' is an integer (7), not a string");
}

TEST(HParamTypes, AHfLayoutMarkOfTheWrongKindIsAnError) {
  FakeWeightFile file = gguf_file();
  file.set_string("tessera.hf_layout", "yes");
  EXPECT_EQ(error_of(file), "tiny.gguf: tessera.hf_layout is a string, \"yes\", but it must be true or false (or 1 or 0)");
}

// ---- the file's mistakes, each with its exact diagnostic ------------------------------

struct FileCase {
  const char* name;
  bool hf;  // against hf_folder(), else gguf_file()
  std::function<void(FakeWeightFile&)> change;
  const char* diagnostic;  // DslError::what(), in full
};

void PrintTo(const FileCase& c, std::ostream* out) { *out << c.name; }

const FileCase kFileRejects[] = {
    {"CountThatIsTrue", true, [](FakeWeightFile& f) { f.set_bool("num_hidden_layers", true); },
     "bad.tsr:4:14: error: tiny-hf/config.json: num_hidden_layers is true, but 'n_layers' needs a whole number\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"CountWithAFraction", true, [](FakeWeightFile& f) { f.set_double("num_hidden_layers", 2.5); },
     "bad.tsr:4:14: error: tiny-hf/config.json: num_hidden_layers is 2.5, but 'n_layers' needs a whole number\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"CountThatIsAString", true, [](FakeWeightFile& f) { f.set_string("num_hidden_layers", "2"); },
     "bad.tsr:4:14: error: tiny-hf/config.json: num_hidden_layers is a string, \"2\", but 'n_layers' needs a "
     "whole number\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"CountThatIsAnArray", true,
     [](FakeWeightFile& f) { f.set_array("num_hidden_layers", {MetaValue{.value = int64_t{2}}}); },
     "bad.tsr:4:14: error: tiny-hf/config.json: num_hidden_layers is an array, [2], but 'n_layers' needs a whole "
     "number\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"CountThatIsNull", true, [](FakeWeightFile& f) { f.set_null("num_hidden_layers"); },
     "bad.tsr:4:14: error: tiny-hf/config.json: num_hidden_layers is null, but 'n_layers' needs a whole number, and "
     "meta() gives no null: value\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"NullWhereADefaultIsGiven", true, [](FakeWeightFile& f) { f.set_null("max_position_embeddings"); },
     "bad.tsr:10:14: error: tiny-hf/config.json: max_position_embeddings is null, but 'n_ctx' needs a whole "
     "number, and meta() gives no null: value\n"
     "  n_ctx    = meta(\"{arch}.context_length\", 0, hf: \"max_position_embeddings\")\n"
     "             ^\n"},
    {"ZeroLayers", true, [](FakeWeightFile& f) { f.set_int("num_hidden_layers", 0); },
     "bad.tsr:12:11: error: n_layers = 0 (from tiny-hf/config.json: num_hidden_layers) breaks n_layers >= 1\n"
     "  require n_layers >= 1, heads >= 1, kv >= 1 && heads % kv == 0\n"
     "          ^\n"},
    {"NegativeLayers", true, [](FakeWeightFile& f) { f.set_int("num_hidden_layers", -1); },
     "bad.tsr:12:11: error: n_layers = -1 (from tiny-hf/config.json: num_hidden_layers) breaks n_layers >= 1\n"
     "  require n_layers >= 1, heads >= 1, kv >= 1 && heads % kv == 0\n"
     "          ^\n"},
    {"NegativeEpsilon", true, [](FakeWeightFile& f) { f.set_double("rms_norm_eps", -1e-6); },
     "bad.tsr:13:11: error: eps = -1e-06 (from tiny-hf/config.json: rms_norm_eps) breaks eps > 0\n"
     "  require eps > 0, window >= 0, n_ctx >= 1\n"
     "          ^\n"},
    {"EpsilonThatIsTrue", true, [](FakeWeightFile& f) { f.set_bool("rms_norm_eps", true); },
     "bad.tsr:7:14: error: tiny-hf/config.json: rms_norm_eps is true, but 'eps' needs a number\n"
     "  eps      = meta(\"{arch}.attention.layer_norm_rms_epsilon\", 1e-5, hf: \"rms_norm_eps\")\n"
     "             ^\n"},
    {"FlagThatIsTwo", true, [](FakeWeightFile& f) { f.set_int("use_parallel_residual", 2); },
     "bad.tsr:9:14: error: tiny-hf/config.json: use_parallel_residual is 2, but 'parallel' needs true or false\n"
     "  parallel = meta(\"{arch}.use_parallel_residual\", true, hf: \"use_parallel_residual\")\n"
     "             ^\n"},
    {"DefaultThatBreaksARequirement", true, [](FakeWeightFile& f) { f.remove_meta("max_position_embeddings"); },
     "bad.tsr:13:33: error: n_ctx = 0 (from the default; tiny-hf/config.json has no max_position_embeddings) "
     "breaks n_ctx >= 1\n"
     "  require eps > 0, window >= 0, n_ctx >= 1\n"
     "                                ^\n"},
    {"CountBeyond64Bits", false,
     [](FakeWeightFile& f) { f.set_uint("tiny.block_count", 18446744073709551615u); },
     "bad.tsr:4:14: error: tiny.gguf: tiny.block_count is 18446744073709551615, beyond a signed 64-bit integer, but "
     "'n_layers' needs a whole number\n"
     "  n_layers = meta(\"{arch}.block_count\", hf: \"num_hidden_layers\")\n"
     "             ^\n"},
    {"EpsilonThatIsNotANumber", false,
     [](FakeWeightFile& f) { f.set_float("tiny.attention.layer_norm_rms_epsilon", std::nan("")); },
     "bad.tsr:7:14: error: tiny.gguf: tiny.attention.layer_norm_rms_epsilon is nan, not a finite number, but 'eps' "
     "needs a number\n"
     "  eps      = meta(\"{arch}.attention.layer_norm_rms_epsilon\", 1e-5, hf: \"rms_norm_eps\")\n"
     "             ^\n"},
    {"KvHeadsThatDoNotDivideTheHeads", false, [](FakeWeightFile& f) { f.set_uint("tiny.attention.head_count_kv", 3); },
     "bad.tsr:12:49: error: heads = 4 (from tiny.gguf: tiny.attention.head_count) and kv = 3 (from tiny.gguf: "
     "tiny.attention.head_count_kv) break heads % kv == 0\n"
     "  require n_layers >= 1, heads >= 1, kv >= 1 && heads % kv == 0\n"
     "                                                ^\n"},
    {"ZeroHeadsWithTheKvDefault", false,
     [](FakeWeightFile& f) {
       f.set_uint("tiny.attention.head_count", 0);
       f.remove_meta("tiny.attention.head_count_kv");
     },
     "bad.tsr:12:26: error: heads = 0 (from tiny.gguf: tiny.attention.head_count) breaks heads >= 1\n"
     "  require n_layers >= 1, heads >= 1, kv >= 1 && heads % kv == 0\n"
     "                         ^\n"},
};

class FileReject : public ::testing::TestWithParam<FileCase> {};

TEST_P(FileReject, GivesTheExactDiagnostic) {
  FakeWeightFile file = GetParam().hf ? hf_folder() : gguf_file();
  GetParam().change(file);
  EXPECT_EQ(error_of(file), GetParam().diagnostic);
}

INSTANTIATE_TEST_SUITE_P(Dsl, FileReject, ::testing::ValuesIn(kFileRejects),
                         [](const ::testing::TestParamInfo<FileCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::test
