// `tessera quantize` end to end: a llama (the tiny model llama.cpp converted from a
// Hugging Face fixture, 256-wide so every K format applies) quantised with each preset
// writes the preset's dtypes, loads, and computes what the f16 original computes within
// the format's error; against llama.cpp's own quantizer on the same file, it picks the
// same dtypes and reaches the same error. (A real model's greedy text through q8_0 is in
// llamacpp_fixtures_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <tuple>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/weights/gguf_reader.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

const char* kSource = "tests/fixtures/llamacpp/tiny-llama.f16.gguf";
const std::vector<int32_t> kTokens = {1, 295, 382, 380, 378, 262, 422, 424, 47, 211, 326, 371, 217, 79, 235, 287};

struct PresetCase {
  const char* preset;
  float max_logit_error;  // RMS(logits - f16 logits) / RMS(f16 logits) over every position
  std::map<std::string, DType> dtypes;  // tensors whose dtype the preset fixes
};

void PrintTo(const PresetCase& c, std::ostream* os) { *os << c.preset; }

class QuantizePreset : public ::testing::TestWithParam<PresetCase> {
 protected:
  static void SetUpTestSuite() {
    host_ = new PluginHost(std::vector<std::string>{plugin_dir()});
    f16_ = load(source_path(kSource)).release();
  }
  static void TearDownTestSuite() {
    delete f16_;
    delete host_;
  }
  static std::unique_ptr<Model> load(const std::string& path) {
    dsl::ModelSpec spec;
    spec.weights_path = path;
    spec.model_dirs = {source_path("models")};
    return dsl::load_model(spec);
  }
  static std::vector<float> logits(const Model& model) {
    const Backend backend = open_backend(*host_, "cpu", 2);
    Session session(model, backend, SessionOptions{.kv_block = 16, .n_ctx = 64, .max_step_tokens = 512});
    return session.feed(kTokens, static_cast<int32_t>(kTokens.size()));
  }
  static PluginHost* host_;
  static Model* f16_;
};
PluginHost* QuantizePreset::host_ = nullptr;
Model* QuantizePreset::f16_ = nullptr;

TEST_P(QuantizePreset, WritesItsDtypesAndComputesWithinItsError) {
  const PresetCase& c = GetParam();
  const std::string out = temp_path(std::string("tiny-") + c.preset + ".gguf");
  const CommandResult r = run_command(shell_quote(tessera_exe()) + " quantize " + shell_quote(source_path(kSource)) +
                                      " --dtype " + c.preset + " -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[1/"), std::string::npos) << "progress on stderr: " << r.err;
  {
    const auto file = GgufFile::open(out);
    for (const auto& [name, dtype] : c.dtypes) {
      const TensorView* t = file->find_tensor(name);
      ASSERT_NE(t, nullptr) << name;
      EXPECT_EQ(t->dtype, dtype) << name << " is " << dtype_name(t->dtype);
    }
    EXPECT_EQ(file->find_tensor("blk.0.attn_norm.weight")->dtype, DType::F32);
  }
  const auto model = load(out);
  const std::vector<float> want = logits(*f16_), got = logits(*model);
  ASSERT_EQ(got.size(), want.size());
  double err = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err += (static_cast<double>(got[i]) - want[i]) * (got[i] - want[i]);
    norm += static_cast<double>(want[i]) * want[i];
  }
  const double relative = std::sqrt(err / norm);
  EXPECT_LE(relative, c.max_logit_error) << c.preset;
  std::printf("%s: RMS(logit - f16 logit) / RMS(f16 logit) = %.4f\n", c.preset, relative);
  std::filesystem::remove(out);
}

// Bounds: 1.5x what was measured (this random model amplifies every rounding: its
// logits reach 30 and q8_0 already moves them by 3.7% RMS). Which formats beat which is
// checked against llama.cpp's own files below.
INSTANTIATE_TEST_SUITE_P(
    Presets, QuantizePreset,
    ::testing::Values(
        PresetCase{"q8_0", 0.06f, {{"blk.0.ffn_down.weight", DType::Q8_0}, {"output.weight", DType::Q8_0}}},
        PresetCase{"q6_k", 0.15f, {{"blk.0.ffn_down.weight", DType::Q6_K}, {"output.weight", DType::Q6_K}}},
        PresetCase{"q5_k_m", 0.27f,
                   {{"blk.0.attn_q.weight", DType::Q5_K}, {"blk.0.ffn_down.weight", DType::Q5_K},
                    {"blk.1.ffn_down.weight", DType::Q6_K}}},
        PresetCase{"q5_0", 0.35f, {{"blk.0.attn_q.weight", DType::Q5_0}, {"output.weight", DType::Q6_K}}},
        PresetCase{"q5_1", 0.3f, {{"blk.0.attn_q.weight", DType::Q5_1}}},
        PresetCase{"q4_k_m", 0.6f,
                   {{"blk.0.attn_q.weight", DType::Q4_K}, {"blk.0.attn_v.weight", DType::Q4_K},
                    {"blk.1.attn_v.weight", DType::Q6_K}, {"token_embd.weight", DType::Q4_K},
                    {"output.weight", DType::Q6_K}}},
        PresetCase{"q4_k_s", 0.6f, {{"blk.1.ffn_down.weight", DType::Q4_K}, {"blk.0.attn_v.weight", DType::Q5_K}}},
        PresetCase{"q4_0", 0.6f, {{"blk.0.attn_q.weight", DType::Q4_0}, {"output.weight", DType::Q6_K}}},
        PresetCase{"q4_1", 0.65f, {{"blk.0.attn_q.weight", DType::Q4_1}}},
        PresetCase{"iq4_nl", 0.6f, {{"blk.0.attn_q.weight", DType::IQ4_NL}}},
        PresetCase{"iq4_xs", 0.6f, {{"blk.0.attn_q.weight", DType::IQ4_XS}}},
        PresetCase{"q3_k_m", 0.95f,
                   {{"blk.0.attn_q.weight", DType::Q3_K}, {"blk.0.attn_output.weight", DType::Q4_K}}},
        PresetCase{"q2_k", 1.5f, {{"blk.0.attn_q.weight", DType::Q2_K}}}),
    [](const auto& info) { return std::string(info.param.preset); });

// The same preset from Tessera and from llama.cpp's llama-quantize, on the same f16 file:
// every tensor gets the same dtype, and Tessera's logits are no further from the f16
// model's than llama.cpp's (within 10%).
class AgainstLlamaCpp : public QuantizePreset {};

TEST_F(AgainstLlamaCpp, SameDtypesAndNoLargerErrorThanLlamaQuantize) {
  for (const char* preset : {"q4_k_m", "q4_0"}) {
    SCOPED_TRACE(preset);
    const std::string ours_path = temp_path(std::string("ours-") + preset + ".gguf");
    const CommandResult r = run_command(shell_quote(tessera_exe()) + " quantize " + shell_quote(source_path(kSource)) +
                                        " --dtype " + preset + " -o " + shell_quote(ours_path));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string theirs_path = source_path(std::string("tests/fixtures/llamacpp/tiny-llama.") + preset + ".gguf");
    {
      const auto ours = GgufFile::open(ours_path), theirs = GgufFile::open(theirs_path);
      ASSERT_EQ(ours->tensors().size(), theirs->tensors().size());
      for (const TensorView& t : theirs->tensors()) {
        const TensorView* o = ours->find_tensor(t.name);
        ASSERT_NE(o, nullptr) << t.name;
        EXPECT_EQ(dtype_name(o->dtype), dtype_name(t.dtype)) << t.name;
      }
    }
    const auto rel = [&](const std::string& path) {
      const std::vector<float> want = logits(*f16_), got = logits(*load(path));
      double err = 0, norm = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        err += (static_cast<double>(got[i]) - want[i]) * (got[i] - want[i]);
        norm += static_cast<double>(want[i]) * want[i];
      }
      return std::sqrt(err / norm);
    };
    const double ours = rel(ours_path), theirs = rel(theirs_path);
    std::printf("%s: relative logit error, Tessera's quantizer %.4f, llama-quantize %.4f\n", preset, ours, theirs);
    EXPECT_LE(ours, 1.1 * theirs);
    std::filesystem::remove(ours_path);
  }
}

// A real model: SmolLM2-135M-Instruct's weights (its Q4_1 values, written as f16), and
// the same quantised to q8_0, continue a prompt with the same 24 greedy tokens.
TEST_F(AgainstLlamaCpp, RealModelThroughQ8_0KeepsItsGreedyText) {
  const std::string smollm2 = smollm2_path();
  if (smollm2.empty()) GTEST_SKIP() << "SmolLM2-135M-Instruct.Q4_1.gguf is not fetched: run scripts/fetch-model.sh";
  const std::string f16 = temp_path("smollm2-f16.gguf"), q8 = temp_path("smollm2-q8_0.gguf");
  for (const auto& [from, to, preset] : {std::tuple{smollm2, f16, "f16"}, std::tuple{f16, q8, "q8_0"}}) {
    const CommandResult r = run_command(shell_quote(tessera_exe()) + " quantize " + shell_quote(from) + " --dtype " +
                                        preset + " -o " + shell_quote(to));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto run = [&](const std::string& path) {
    const auto model = load(path);
    const Backend backend = open_backend(*host_, "cpu", 2);
    Session session(*model, backend, SessionOptions{.kv_block = 16, .n_ctx = 64, .max_step_tokens = 512});
    std::vector<int32_t> ids = model->tokenizer().encode("The capital of France is", model->tokenizer().add_bos());
    std::vector<float> l = session.feed(ids, 1);
    std::vector<int32_t> out;
    for (int i = 0; i < 24; ++i) {
      out.push_back(static_cast<int32_t>(std::max_element(l.begin(), l.end()) - l.begin()));
      l = session.feed(std::span<const int32_t>(&out.back(), 1), 1);
    }
    return out;
  };
  EXPECT_EQ(run(q8), run(f16));
  std::filesystem::remove(f16);
  std::filesystem::remove(q8);
}

}  // namespace
}  // namespace tessera::test
