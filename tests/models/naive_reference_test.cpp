// Every model of the library against the naive reference transformer: a random-weight
// GGUF written by `tessera init` for the definition loads, and its logits agree with
// plain loops over the formulas (tests/support/naive_transformer) on every position of a
// prefill; token-by-token decode through the paged KV cache agrees with the prefill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <span>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "support/naive_transformer.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

constexpr float kTolerance = 1e-4f;  // f32 kernels against double loops; logits are O(1)

struct LibraryModel {
  const char* name;      // models/<name>.tsr
  std::string init_set;  // --set flags for tessera init
  NaiveConfig config;    // the same model for the reference
};

std::ostream& operator<<(std::ostream& os, const LibraryModel& m) { return os << m.name; }

NaiveConfig sizes(int layers, int d_model, int heads, int kv_heads, int head_dim, int d_ff) {
  NaiveConfig c;
  c.n_layers = layers;
  c.d_model = d_model;
  c.n_heads = heads;
  c.n_kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.d_ff = d_ff;
  c.n_vocab = 260;  // tessera init's byte vocabulary needs 259
  return c;
}

std::vector<LibraryModel> library() {
  std::vector<LibraryModel> out;
  {
    NaiveConfig c = sizes(2, 32, 4, 2, 8, 64);
    out.push_back({"llama", "--set n_heads=4 --set n_kv_heads=2 --set d_ff=64", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 4, 2, 8, 64);
    c.norm_eps = 1e-6, c.qkv_bias = true, c.rope_pairing = NaiveRopePairing::neox, c.rope_theta = 1e6;
    out.push_back({"qwen2", "--set n_heads=4 --set n_kv_heads=2 --set d_ff=64", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 4, 2, 16, 64);
    c.norm_eps = 1e-6, c.qk_norm = true, c.rope_pairing = NaiveRopePairing::neox, c.rope_theta = 1e6;
    out.push_back({"qwen3", "--set n_heads=4 --set n_kv_heads=2 --set d_ff=64 --set head_dim=16", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 4, 1, 16, 64);
    c.norm_eps = 1e-6, c.rope_pairing = NaiveRopePairing::neox, c.embed_scale = std::sqrt(32.0);
    c.ffn = NaiveFfn::geglu, c.gelu = NaiveGelu::tanh, c.tied_output = true;
    out.push_back({"gemma", "--set n_heads=4 --set n_kv_heads=1 --set d_ff=64 --set head_dim=16", c});
  }
  {
    NaiveConfig c = sizes(3, 32, 4, 2, 16, 48);
    c.norm_eps = 1e-6, c.rope_pairing = NaiveRopePairing::neox, c.embed_scale = std::sqrt(32.0);
    c.ffn = NaiveFfn::geglu, c.gelu = NaiveGelu::tanh, c.tied_output = true, c.post_norms = true;
    c.sliding_window = {4, 0, 4}, c.attn_softcap = 0.5, c.final_softcap = 3.0, c.attn_scale = 1.0 / std::sqrt(16.0);
    out.push_back({"gemma2",
                   "--set n_heads=4 --set n_kv_heads=2 --set d_ff=48 --set head_dim=16 "
                   "--set window=4 --set attn_softcap=0.5 --set final_softcap=3.0",
                   c});
  }
  {
    NaiveConfig c = sizes(2, 32, 4, 4, 8, 64);
    c.norm = NaiveNorm::layer, c.norm_bias = true, c.qkv = NaiveQkv::fused, c.qkv_bias = true;
    c.attn_output_bias = true, c.ffn_bias = true, c.position = NaivePosition::learned;
    c.ffn = NaiveFfn::gelu, c.gelu = NaiveGelu::tanh;
    out.push_back({"gpt2", "--set n_heads=4 --set d_ff=64 --set n_pos=32", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 2, 2, 16, 64);
    c.norm = NaiveNorm::layer, c.norm_bias = true, c.block = NaiveBlock::parallel_shared_norm;
    // The q/k/v biases are optional (`else none`: a fused attn_qkv file has none of them),
    // so tessera init leaves them out; the fixtures of Hugging Face and fused files have them.
    c.qkv_bias = false, c.attn_output_bias = true, c.ffn_bias = true, c.ffn = NaiveFfn::gelu;
    c.gelu = NaiveGelu::tanh, c.rope_pairing = NaiveRopePairing::neox, c.rope_dims = 6, c.output_bias = true;
    out.push_back({"phi2", "--set n_heads=2 --set d_ff=64", c});  // n_rot = round(16 * 0.4)
  }
  {
    NaiveConfig c = sizes(2, 36, 6, 6, 6, 144);
    c.norm = NaiveNorm::layer, c.qkv = NaiveQkv::fused, c.position = NaivePosition::alibi;
    c.ffn = NaiveFfn::gelu;  // tessera init writes output.weight: the definition reads it when present
    out.push_back({"mpt", "--set n_heads=6", c});
  }
  {
    NaiveConfig c = sizes(2, 36, 6, 6, 6, 144);
    c.norm = NaiveNorm::layer, c.norm_bias = true, c.embed_norm = true, c.qkv = NaiveQkv::fused;
    c.qkv_bias = true, c.attn_output_bias = true, c.ffn_bias = true, c.position = NaivePosition::alibi;
    c.ffn = NaiveFfn::gelu, c.gelu = NaiveGelu::tanh;  // untied, as for mpt
    out.push_back({"bloom", "--set n_heads=6", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 2, 2, 16, 64);
    // The q/k/v biases are optional (`else none`), so tessera init leaves them out.
    c.norm = NaiveNorm::layer, c.norm_bias = true;
    c.rope_pairing = NaiveRopePairing::neox, c.rope_dims = 4;
    out.push_back({"stablelm", "--set n_heads=2 --set d_ff=64", c});
  }
  {
    NaiveConfig c = sizes(2, 32, 2, 2, 16, 64);
    c.norm = NaiveNorm::layer, c.norm_bias = true, c.block = NaiveBlock::parallel_two_norms;
    c.qkv = NaiveQkv::fused, c.qkv_bias = true, c.attn_output_bias = true, c.ffn_bias = true;
    c.ffn = NaiveFfn::gelu, c.rope_pairing = NaiveRopePairing::neox, c.rope_dims = 4;
    out.push_back({"gptneox", "--set n_heads=2 --set d_ff=64", c});
  }
  for (LibraryModel& m : out) {  // the sizes of the config, the vocabulary of tessera init
    const NaiveConfig& c = m.config;
    m.init_set = "--set n_vocab=260 --set n_layers=" + std::to_string(c.n_layers) +
                 " --set d_model=" + std::to_string(c.d_model) + " " + m.init_set;
  }
  return out;
}

class NaiveReferenceTest : public ::testing::TestWithParam<LibraryModel> {
 protected:
  void SetUp() override {
    const LibraryModel& m = GetParam();
    arch_ = source_path(std::string("models/") + m.name + ".tsr");
    weights_ = temp_path(std::string("library_") + m.name + ".gguf");
    const CommandResult r = run_command(shell_quote(tessera_exe()) + " init --arch " + shell_quote(arch_) + " " +
                                        m.init_set + " --dtype f32 --seed 7 -o " + shell_quote(weights_));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    dsl::ModelSpec spec;
    spec.weights_path = weights_;
    spec.arch_path = arch_;
    model_ = dsl::load_model(spec);
  }
  void TearDown() override { std::filesystem::remove(weights_); }

  std::string arch_, weights_;
  std::unique_ptr<Model> model_;
  PluginHost host_{std::vector<std::string>{plugin_dir()}};
};

const std::vector<int32_t> kTokens = {1, 17, 200, 3, 99, 42, 42, 7, 250, 5, 64, 128, 9};

float row_error(const float* got, const std::vector<float>& want) {
  float worst = 0;
  for (size_t v = 0; v < want.size(); ++v) worst = std::max(worst, std::fabs(got[v] - want[v]));
  return worst;
}

TEST_P(NaiveReferenceTest, PrefillMatchesTheNaiveReference) {
  const auto want = naive_logits(GetParam().config, WeightFileWeights(model_->weights()), kTokens);
  const Backend backend = open_backend(host_, "cpu", 2);
  Session session(*model_, backend, SessionOptions{.kv_block = 4, .n_ctx = 32, .max_step_tokens = 512});
  const auto& got = session.feed(kTokens, static_cast<int32_t>(kTokens.size()));
  ASSERT_EQ(got.size(), kTokens.size() * 260);
  for (size_t t = 0; t < kTokens.size(); ++t) {
    EXPECT_LT(row_error(got.data() + t * 260, want[t]), kTolerance) << "position " << t;
  }
}

// tessera init writes what the definition reads, and the definition reads all of it.
TEST_P(NaiveReferenceTest, DefinitionReadsTheWholeRandomGguf) {
  const FileCoverage& c = model_->compiled().coverage;
  EXPECT_EQ(c.used_tensors, c.file_tensors);
  EXPECT_EQ(c.unused_tensors, std::vector<std::string>{});
  EXPECT_TRUE(c.unread_keys.empty()) << c.unread_keys.front().name;
}

TEST_P(NaiveReferenceTest, DecodeMatchesPrefill) {
  const Backend backend = open_backend(host_, "cpu", 2);
  Session whole(*model_, backend, SessionOptions{.kv_block = 4, .n_ctx = 32, .max_step_tokens = 512});
  const std::vector<float> prefill = whole.feed(kTokens, static_cast<int32_t>(kTokens.size()));
  Session stepwise(*model_, backend, SessionOptions{.kv_block = 4, .n_ctx = 32, .max_step_tokens = 512});
  for (size_t t = 0; t < kTokens.size(); ++t) {
    const auto& got = stepwise.feed(std::span<const int32_t>(&kTokens[t], 1));
    const std::vector<float> want(prefill.begin() + static_cast<long>(t * 260),
                                  prefill.begin() + static_cast<long>((t + 1) * 260));
    EXPECT_LT(row_error(got.data(), want), 1e-4f) << "position " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Library, NaiveReferenceTest, ::testing::ValuesIn(library()),
                         [](const ::testing::TestParamInfo<LibraryModel>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::test
