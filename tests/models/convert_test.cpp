// `tessera convert` and `tessera init --format hf`: a Hugging Face folder converted to
// GGUF computes what the folder (and transformers) computes; a random folder written
// by init holds the numbers of the random GGUF of the same flags; bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/quant_preset.h"
#include "core/weights/weight_file.h"
#include "models/hf_fixture.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

// The converted GGUF against transformers: the tolerance of hf_fixtures_test.cpp.
constexpr float kTransformersTolerance = 2e-3f;
// The same weights in another file: the same kernels on the same f32 numbers; only the
// metadata floats (norm eps, rope theta) pass through a GGUF float32.
constexpr float kSameModelTolerance = 1e-5f;

CommandResult tessera(const std::string& args) { return run_command(shell_quote(tessera_exe()) + " " + args); }

// Largest |a - b| over two logit arrays of the same size.
float max_abs_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

// Element i of an f32 tensor.
float f32_at(const TensorView& t, int64_t i) {
  float v;
  std::memcpy(&v, static_cast<const uint8_t*>(t.data) + i * 4, sizeof v);
  return v;
}

class ConvertTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { host_ = new PluginHost(std::vector<std::string>{plugin_dir()}); }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }
  void TearDown() override {
    for (const std::string& p : created_) std::filesystem::remove_all(p);
  }

  // A temporary path removed after the test.
  std::string scratch(const std::string& name) {
    created_.push_back(temp_path(name));
    return created_.back();
  }

  // Weights from a file or folder; the definition by --arch or by the file's architecture.
  static std::unique_ptr<Model> load(const std::string& weights, const std::string& arch_path = "") {
    dsl::ModelSpec spec;
    spec.weights_path = weights;
    spec.arch_path = arch_path;
    spec.model_dirs = {source_path("models")};
    return dsl::load_model(spec);
  }

  // The logits of every position of one prefill of `tokens`: [tokens][n_vocab].
  static std::vector<float> prefill_logits(const Model& model, const std::vector<int32_t>& tokens) {
    const Backend backend = open_backend(*host_, "cpu", 2);
    Session session(model, backend, SessionOptions{.kv_block = 4, .n_ctx = 64, .max_step_tokens = 512});
    return session.feed(tokens, static_cast<int32_t>(tokens.size()));
  }

  static PluginHost* host_;
  std::vector<std::string> created_;
};
PluginHost* ConvertTest::host_ = nullptr;

// --- Hugging Face fixtures converted to GGUF -------------------------------------------

class ConvertFixtureTest : public ConvertTest, public ::testing::WithParamInterface<const char*> {
 protected:
  // The fixture folder converted with `flags`; the test fails if the command does.
  std::string convert_fixture(const std::string& flags) {
    const std::string gguf = scratch(std::string(GetParam()) + ".gguf");
    const CommandResult r =
        tessera("convert " + shell_quote(hf_fixture_folder(GetParam())) + " " + flags + " -o " + shell_quote(gguf));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return gguf;
  }
};

TEST_P(ConvertFixtureTest, GgufLogitsMatchTransformers) {
  const HfFixture f = load_hf_fixture(GetParam());
  const auto model = load(convert_fixture("--dtype f32"));
  for (const HfSequence& s : f.sequences) {
    const std::vector<float> logits = prefill_logits(*model, s.tokens);
    const size_t n_vocab = s.logits.front().size();
    ASSERT_EQ(logits.size(), s.tokens.size() * n_vocab);
    for (size_t t = 0; t < s.tokens.size(); ++t) {
      const std::vector<float> row(logits.begin() + t * n_vocab, logits.begin() + (t + 1) * n_vocab);
      EXPECT_LT(max_abs_error(row, s.logits[t]), kTransformersTolerance) << "position " << t;
    }
  }
}

TEST_P(ConvertFixtureTest, GgufLogitsEqualTheFolders) {
  const HfFixture f = load_hf_fixture(GetParam());
  const auto folder = load(f.folder);
  const auto gguf = load(convert_fixture("--dtype f32"));
  EXPECT_EQ(gguf->arch_path(), folder->arch_path());
  for (const HfSequence& s : f.sequences) {
    EXPECT_LT(max_abs_error(prefill_logits(*gguf, s.tokens), prefill_logits(*folder, s.tokens)),
              kSameModelTolerance);
  }
}

// The conversion holds what the definition reads, and the definition reads all of it.
TEST_P(ConvertFixtureTest, DefinitionReadsTheWholeGguf) {
  const auto gguf = load(convert_fixture("--dtype f32"));
  const FileCoverage& c = gguf->compiled().coverage;
  EXPECT_EQ(c.used_tensors, c.file_tensors);
  EXPECT_EQ(c.unused_tensors, std::vector<std::string>{});
  EXPECT_TRUE(c.unread_keys.empty()) << c.unread_keys.front().name;
}

TEST_P(ConvertFixtureTest, GgufNamesTheModelAndKeepsTheHfLayout) {
  const auto gguf = open_weight_file(convert_fixture("--dtype f32"));
  const auto def = load(hf_fixture_folder(GetParam()));
  ASSERT_NE(gguf->find_meta("general.architecture"), nullptr);
  EXPECT_EQ(gguf->find_meta("general.architecture")->as_string(), def->compiled().name);
  ASSERT_NE(gguf->find_meta("tessera.hf_layout"), nullptr);
  EXPECT_EQ(gguf->find_meta("tessera.hf_layout")->as_int(), 1);
  EXPECT_EQ(gguf->find_meta("tokenizer.ggml.tokens"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Library, ConvertFixtureTest,
                         ::testing::Values("llama", "qwen2", "gpt2", "phi2", "gemma", "bloom", "gpt_neox", "mpt", "phi3",
                                           "olmo2", "starcoder2", "granite", "olmo", "smollm3", "cohere", "gemma2",
                                           "cohere2", "gptj", "nemotron", "falcon", "falcon-40b", "gpt_bigcode",
                                           "exaone4", "glm4", "arcee", "mixtral", "qwen3_moe", "qwen2_moe",
                                           "internlm2", "baichuan", "baichuan-13b", "exaone",
                                           "cohere-qknorm", "qwen3_moe-step2", "qwen3_moe-mlponly"));

TEST_F(ConvertTest, KeepLeavesBf16MatricesAndWidensVectorsToF32) {
  const std::string gguf = scratch("llama-bf16.gguf");
  const CommandResult r =
      tessera("convert " + shell_quote(hf_fixture_folder("llama-bf16")) + " -o " + shell_quote(gguf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto file = open_weight_file(gguf);
  ASSERT_NE(file->find_tensor("blk.0.attn_q.weight"), nullptr);
  EXPECT_EQ(file->find_tensor("blk.0.attn_q.weight")->dtype, DType::BF16);
  ASSERT_NE(file->find_tensor("output_norm.weight"), nullptr);
  EXPECT_EQ(file->find_tensor("output_norm.weight")->dtype, DType::F32);
  const HfFixture f = load_hf_fixture("llama-bf16");
  const HfSequence& s = f.sequences.front();
  EXPECT_LT(max_abs_error(prefill_logits(*load(gguf), s.tokens),
                          prefill_logits(*load(hf_fixture_folder("llama-bf16")), s.tokens)),
            kSameModelTolerance);
}

// --- init --format hf ------------------------------------------------------------------

struct InitCase {
  const char* definition;  // models/<definition>.tsr
  const char* sets;        // its shape for tessera init
  const char* gguf_name;   // a matrix to compare between the formats, and its hf: name
  const char* hf_name;
  bool hf_transposed;      // the folder stores it [in, out]
};

std::ostream& operator<<(std::ostream& os, const InitCase& c) { return os << c.definition; }

class InitHfTest : public ConvertTest, public ::testing::WithParamInterface<InitCase> {
 protected:
  std::string arch() const { return source_path(std::string("models/") + GetParam().definition + ".tsr"); }

  // tessera init of the case's model in `format` with seed 7, f32 weights.
  std::string init(const std::string& format) {
    const std::string out = scratch(std::string(GetParam().definition) + "-init." + format);
    const CommandResult r = tessera("init --arch " + shell_quote(arch()) + " " + GetParam().sets +
                                    " --dtype f32 --seed 7 --format " + format + " -o " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }
};

const std::vector<int32_t> kInitTokens = {1, 17, 42, 99, 3, 250, 7, 64, 128, 5};

TEST_P(InitHfTest, FolderRunsAndMatchesItsGgufConversion) {
  const std::string folder = init("hf");
  const std::string gguf = scratch(std::string(GetParam().definition) + "-converted.gguf");
  const CommandResult r = tessera("convert " + shell_quote(folder) + " --arch " + shell_quote(arch()) +
                                  " --dtype f32 -o " + shell_quote(gguf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<float> from_folder = prefill_logits(*load(folder, arch()), kInitTokens);
  ASSERT_EQ(from_folder.size(), kInitTokens.size() * 260);
  EXPECT_TRUE(std::all_of(from_folder.begin(), from_folder.end(), [](float v) { return std::isfinite(v); }));
  EXPECT_GT(max_abs_error(from_folder, std::vector<float>(from_folder.size(), 0.0f)), 0.1f);  // not all zero
  EXPECT_LT(max_abs_error(prefill_logits(*load(gguf, arch()), kInitTokens), from_folder), kSameModelTolerance);
}

TEST_P(InitHfTest, FolderHoldsTheNumbersOfTheGgufOfTheSameFlags) {
  const auto gguf = open_weight_file(init("gguf"));
  const auto folder = open_weight_file(init("hf"));
  const TensorView* g = gguf->find_tensor(GetParam().gguf_name);
  const TensorView* h = folder->find_tensor(GetParam().hf_name);
  ASSERT_NE(g, nullptr);
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(g->shape.size(), 2u);
  const int64_t rows = g->shape[0], cols = g->shape[1];  // [out, in]
  const bool transposed = GetParam().hf_transposed;
  const std::vector<int64_t> stored = transposed ? std::vector<int64_t>{cols, rows} : g->shape;
  EXPECT_EQ(h->shape, stored);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      mismatches += f32_at(*g, r * cols + c) != f32_at(*h, transposed ? c * rows + r : r * cols + c);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(InitHfTest, ConfigHoldsTheHyperParametersAndModelType) {
  const auto folder = open_weight_file(init("hf"));
  ASSERT_NE(folder->find_meta("model_type"), nullptr);
  EXPECT_EQ(folder->find_meta("model_type")->as_string(), GetParam().definition);
  const auto model = load(init("gguf"), arch());
  for (const HParam& h : model->compiled().hparams) {
    if (h.hf_key.empty()) continue;
    const MetaValue* v = folder->find_meta(h.hf_key);
    ASSERT_NE(v, nullptr) << h.hf_key;
    // The GGUF holds float hyper-parameters as float32; config.json as written.
    EXPECT_NEAR(v->as_float(), h.value, h.is_integer ? 0.0 : 1e-7 * std::max(1.0, std::fabs(h.value))) << h.hf_key;
    EXPECT_EQ(v->is_integer(), h.is_integer) << h.hf_key;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Library, InitHfTest,
    ::testing::Values(InitCase{"llama",
                               "--set n_vocab=260 --set n_layers=2 --set d_model=32 --set n_heads=4 "
                               "--set n_kv_heads=2 --set d_ff=64",
                               "blk.1.attn_k.weight", "model.layers.1.self_attn.k_proj.weight", false},
                      InitCase{"gpt2",
                               "--set n_vocab=260 --set n_pos=64 --set n_layers=2 --set d_model=32 "
                               "--set n_heads=4",
                               "blk.1.ffn_up.weight", "transformer.h.1.mlp.c_fc.weight", true},
                      // Mixtral's form: each expert's matrix a tensor of the folder ({*}).
                      InitCase{"llama",
                               "--set n_vocab=260 --set n_layers=2 --set d_model=32 --set n_heads=4 "
                               "--set n_kv_heads=2 --set d_ff=64 --set n_experts=4 --set n_used=2",
                               "blk.1.ffn_gate_inp.weight", "model.layers.1.block_sparse_moe.gate.weight", false}));

TEST_F(ConvertTest, TokenizerFromCopiesTheTokenizerOfAnotherGguf) {
  const std::string arch = source_path("models/llama.tsr");
  const std::string sets = " --set n_vocab=260 --set n_layers=1 --set d_model=32 --set n_heads=4 --set d_ff=64";
  const std::string vocab = scratch("byte-vocab.gguf"), folder = scratch("llama-hf"), out = scratch("with-vocab.gguf");
  ASSERT_EQ(tessera("init --arch " + shell_quote(arch) + sets + " -o " + shell_quote(vocab)).exit_code, 0);
  ASSERT_EQ(tessera("init --arch " + shell_quote(arch) + sets + " --format hf -o " + shell_quote(folder)).exit_code, 0);
  const CommandResult r = tessera("convert " + shell_quote(folder) + " --tokenizer-from " + shell_quote(vocab) +
                                  " -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto model = load(out);
  ASSERT_TRUE(model->has_tokenizer());
  EXPECT_EQ(model->tokenizer().n_vocab(), 260);
  EXPECT_EQ(*model->weights().find_meta("tokenizer.ggml.tokens"),
            *open_weight_file(vocab)->find_meta("tokenizer.ggml.tokens"));
}

// --- bad input -------------------------------------------------------------------------

TEST_F(ConvertTest, UnknownDtypeIsRefused) {
  const std::string out = scratch("x.gguf");
  const CommandResult r =
      tessera("convert " + shell_quote(hf_fixture_folder("llama")) + " --dtype f8 -o " + shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tessera convert: --dtype must be keep, " + quant_preset_names() + "; got 'f8'\n");
}

TEST_F(ConvertTest, QuantizeRefusesAnUnknownPresetAndKeep) {
  for (const char* name : {"q4_k_x", "keep"}) {
    const CommandResult r = tessera("quantize " + shell_quote(hf_fixture_folder("llama")) + " --dtype " + name +
                                    " -o " + shell_quote(scratch("x.gguf")));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "tessera quantize: --dtype must be " + quant_preset_names() + "; got '" + name + "'\n");
  }
}

TEST_F(ConvertTest, Q4KOfRowsThatAreNotWholeSuperBlocksFallsBackTo32ElementBlocks) {
  // The llama fixture is 32 wide: q4_k would need rows of 256, so q5_0 (blocks of 32) is written.
  const std::string out = scratch("q4km.gguf");
  const CommandResult r =
      tessera("quantize " + shell_quote(hf_fixture_folder("llama")) + " --dtype q4_k_m -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto file = GgufFile::open(out);
  EXPECT_EQ(file->find_tensor("blk.0.attn_q.weight")->dtype, DType::Q5_0);
  EXPECT_EQ(file->find_meta("general.file_type")->as_int(), 15);
}

// Command R+'s q/k norm gains per head are [heads, head_dim] matrices that the norms
// read as f32 values: converted to q8_0, the model keeps them f32 (rows of 8 would not
// even fit a q8_0 block) and computes what the folder does, within q8_0's error.
TEST_F(ConvertTest, Q8KeepsPerHeadNormGainsF32) {
  const std::string out = scratch("cohere-qknorm-q8.gguf");
  const CommandResult r =
      tessera("convert " + shell_quote(hf_fixture_folder("cohere-qknorm")) + " --dtype q8_0 -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto file = GgufFile::open(out);
  EXPECT_EQ(file->find_tensor("blk.0.attn_q.weight")->dtype, DType::Q8_0);
  EXPECT_EQ(file->find_tensor("blk.0.attn_q_norm.weight")->dtype, DType::F32);
  EXPECT_EQ(file->find_tensor("blk.1.attn_k_norm.weight")->dtype, DType::F32);
  const HfFixture f = load_hf_fixture("cohere-qknorm");
  const HfSequence& s = f.sequences.front();
  EXPECT_LT(max_abs_error(prefill_logits(*load(out), s.tokens),
                          prefill_logits(*load(hf_fixture_folder("cohere-qknorm")), s.tokens)),
            0.25);  // q8_0's rounding of the matrices: 0.11 measured
}

TEST_F(ConvertTest, MissingSourceIsRefused) {
  const std::string missing = scratch("no-such-model");
  const CommandResult r = tessera("convert " + shell_quote(missing) + " -o " + shell_quote(scratch("x.gguf")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tessera convert: error: " + missing + ": cannot open: No such file or directory\n");
}

TEST_F(ConvertTest, Q8RowsThatAreNotWholeBlocksAreRefused) {
  const std::string source = scratch("llama-48.gguf"), out = scratch("llama-48-q8.gguf");
  const CommandResult init = tessera("init --arch " + shell_quote(source_path("models/llama.tsr")) +
                                     " --set n_vocab=260 --set n_layers=1 --set d_model=48 --set n_heads=4"
                                     " --set d_ff=64 --dtype f32 -o " + shell_quote(source));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const CommandResult r = tessera("convert " + shell_quote(source) + " --dtype q8_0 -o " + shell_quote(out));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "tessera convert: error: cannot store 'token_embd.weight' as q8_0: its rows have 48 elements, not a "
            "multiple of 32\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(ConvertTest, InitHfRefusesAWeightWithoutAnHfName) {
  const std::string arch = scratch("no-hf-names.tsr");
  std::ofstream(arch) << "model tiny\n"
                         "hparams { d = 8  v = 16 }\n"
                         "weights { emb [v, d] = \"token_embd.weight\" }\n"
                         "forward { logits = linear(outputs(embed(emb)), emb) }\n";
  const std::string out = scratch("tiny-hf");
  const CommandResult r = tessera("init --arch " + shell_quote(arch) + " --format hf -o " + shell_quote(out));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tessera init: error: " + arch + ": weight 'emb' has no hf: name, so a Hugging Face folder "
                   "cannot hold it\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// The per-pair divisors llama.cpp stores as rope_freqs.weight for a Llama 3.1 model:
// the plain RoPE frequency over the "llama3" one (factor, low, high, original context).
std::vector<float> llama3_freq_divisors(int n_rot, double theta, double factor, double low, double high,
                                        double orig_ctx) {
  std::vector<float> out;
  for (int i = 0; i < n_rot / 2; ++i) {
    const double f = std::pow(theta, -2.0 * i / n_rot);
    const double wavelength = 2 * M_PI / f;
    double scaled = f;
    if (wavelength > orig_ctx / low) {
      scaled = f / factor;
    } else if (wavelength >= orig_ctx / high) {
      const double s = (orig_ctx / wavelength - low) / (high - low);
      scaled = (1 - s) * f / factor + s * f;
    }
    out.push_back(static_cast<float>(f / scaled));
  }
  return out;
}

// A Llama 3.1 folder converted by Tessera keeps the llama3 parameters; a GGUF as llama.cpp
// writes it has none and the divisors as the tensor rope_freqs.weight, which the
// definition reads as an optional weight. Both give transformers' logits.
TEST_F(ConvertTest, Llama3RopeScalingSurvivesBothGgufForms) {
  const std::string converted = scratch("llama3_params.gguf");
  const CommandResult r = tessera("convert " + shell_quote(hf_fixture_folder("llama3-rope")) + " --dtype f32 -o " +
                                  shell_quote(converted));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto source = GgufFile::open(converted);
  GgufWriter writer;
  writer.copy_meta(*source);
  for (const char* key : {"llama.rope.scaling.low_freq_factor", "llama.rope.scaling.factor"}) {
    MetaValue none{0.0};
    if (std::string(key) == "llama.rope.scaling.factor") none.value = 1.0;
    none.gguf_type = 6;  // float32, as llama.cpp writes floats
    writer.set_meta(key, none);
  }
  for (const TensorView& t : source->tensors()) writer.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
  // The fixture's config: head_dim 8, theta 1e4, factor 8, low 1, high 4, original 128.
  const std::vector<float> divisors = llama3_freq_divisors(8, 10000.0, 8.0, 1.0, 4.0, 128.0);
  ASSERT_GT(*std::max_element(divisors.begin(), divisors.end()), 1.5f);  // some pairs are scaled
  writer.add_tensor("rope_freqs.weight", DType::F32, {4}, divisors.data(), divisors.size() * sizeof(float));
  const std::string with_freqs = scratch("llama3_rope_freqs.gguf");
  writer.write(with_freqs);

  // Both GGUFs: Tessera's conversion (llama3 parameters) and the llama.cpp-style one.
  const HfFixture f = load_hf_fixture("llama3-rope");
  for (const std::string& path : {converted, with_freqs}) {
    const auto model = load(path);
    for (const HfSequence& seq : f.sequences) {
      const std::vector<float> got = prefill_logits(*model, seq.tokens);
      std::vector<float> want;
      for (const auto& row : seq.logits) want.insert(want.end(), row.begin(), row.end());
      EXPECT_LT(max_abs_error(got, want), kTransformersTolerance) << path;
    }
  }
}

}  // namespace
}  // namespace tessera::test
