// Every model of the library against Hugging Face transformers: the tiny random models
// of tests/fixtures/hf load straight from their folders (config.json + safetensors),
// the definition is chosen by model_type, and the logits match transformers' on every
// position, for a whole-sequence prefill and for token-by-token decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>
#include <span>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"
#include "models/fixture_logits.h"
#include "models/hf_fixture.h"

namespace tessera::test {
namespace {

struct Case {
  const char* fixture;
  const char* definition;  // the models/*.tsr file model_type must choose
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.fixture; }

class HfFixtureTest : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() { host_ = new PluginHost(std::vector<std::string>{plugin_dir()}); }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }

  std::unique_ptr<Model> load(const HfFixture& f) {
    dsl::ModelSpec spec;
    spec.weights_path = f.folder;
    spec.model_dirs = {source_path("models")};
    return dsl::load_model(spec);
  }

  static PluginHost* host_;
};
PluginHost* HfFixtureTest::host_ = nullptr;

TEST_P(HfFixtureTest, ModelTypeChoosesTheDefinition) {
  const HfFixture f = load_hf_fixture(GetParam().fixture);
  const auto model = load(f);
  EXPECT_EQ(std::filesystem::path(model->arch_path()).filename().string(), GetParam().definition);
}

// The definition reads every tensor of its own fixture.
TEST_P(HfFixtureTest, DefinitionReadsEveryTensorOfTheFolder) {
  const auto model = load(load_hf_fixture(GetParam().fixture));
  const FileCoverage& c = model->compiled().coverage;
  EXPECT_EQ(c.used_tensors, c.file_tensors);
  EXPECT_EQ(c.unused_tensors, std::vector<std::string>{});
  EXPECT_EQ(c.ignored_buffers, std::vector<std::string>{});
}

TEST_P(HfFixtureTest, PrefillLogitsMatchTransformers) {
  const HfFixture f = load_hf_fixture(GetParam().fixture);
  const auto model = load(f);
  const Backend backend = open_backend(*host_, "cpu", 2);
  const float tolerance = prefill_tolerance(backend, std::string(GetParam().fixture).find("bf16") != std::string::npos);
  for (const HfSequence& s : f.sequences) expect_transformers_logits(*model, backend, s, s.tokens.size(), tolerance);
}

TEST_P(HfFixtureTest, DecodeLogitsMatchTransformers) {
  const HfFixture f = load_hf_fixture(GetParam().fixture);
  const auto model = load(f);
  const Backend backend = open_backend(*host_, "cpu", 2);
  // The longer sequence, one token per step: it crosses windows and blocks.
  expect_transformers_logits(*model, backend, f.sequences.back(), 1);
}

// A folder whose tokenizer.json Tessera cannot read still loads and runs from token ids;
// asking for its tokenizer gives the reason.
TEST(HfFolderTokenizer, UnreadableTokenizerJsonLeavesTokenIds) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("tessera_hf_tok_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(fs::path(hf_fixture_folder("llama")) / f, folder / f, fs::copy_options::overwrite_existing);
  }
  std::ofstream(folder / "tokenizer.json") << R"({"model": {"type": "Unigram", "vocab": []}})";
  dsl::ModelSpec spec;
  spec.weights_path = folder.string();
  spec.model_dirs = {source_path("models")};
  const auto model = dsl::load_model(spec);
  EXPECT_FALSE(model->has_tokenizer());
  EXPECT_EQ(tokenizer_error(*model), (folder / "tokenizer.json").string() +
                                         ": model.type is \"Unigram\"; Tessera reads only BPE tokenizers "
                                         "(byte-level, or SentencePiece-style with byte fallback)");
  fs::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(
    Library, HfFixtureTest,
    ::testing::Values(Case{"llama", "llama.tsr"}, Case{"llama-rope-linear", "llama.tsr"}, Case{"llama3-rope", "llama.tsr"},
                      Case{"llama-sharded", "llama.tsr"}, Case{"llama-bf16", "llama.tsr"},
                      Case{"mistral", "llama.tsr"}, Case{"qwen2", "qwen2.tsr"}, Case{"qwen2-yarn", "qwen2.tsr"}, Case{"qwen3", "qwen3.tsr"},
                      Case{"gpt2", "gpt2.tsr"}, Case{"phi2", "phi2.tsr"}, Case{"gemma", "gemma.tsr"},
                      Case{"gemma2", "gemma2.tsr"}, Case{"gemma3", "gemma3.tsr"}, Case{"mpt", "mpt.tsr"},
                      Case{"bloom", "bloom.tsr"}, Case{"stablelm", "stablelm.tsr"}, Case{"stablelm-nobias", "stablelm.tsr"},
                      Case{"gpt_neox", "gptneox.tsr"}, Case{"phi3", "phi3.tsr"},
                      Case{"olmo2", "olmo2.tsr"}, Case{"starcoder2", "starcoder2.tsr"}, Case{"granite", "granite.tsr"},
                      Case{"olmo", "olmo.tsr"}, Case{"smollm3", "smollm3.tsr"}, Case{"smollm3-nope4", "smollm3.tsr"},
                      Case{"cohere", "command_r.tsr"}, Case{"cohere2", "cohere2.tsr"}, Case{"gptj", "gptj.tsr"},
                      Case{"nemotron", "nemotron.tsr"}, Case{"falcon", "falcon.tsr"}, Case{"falcon-40b", "falcon.tsr"},
                      Case{"gpt_bigcode", "starcoder.tsr"}, Case{"exaone4", "exaone4.tsr"},
                      Case{"glm4", "glm4.tsr"}, Case{"arcee", "arcee.tsr"}, Case{"mixtral", "llama.tsr"},
                      Case{"qwen3_moe", "qwen3_moe.tsr"}, Case{"qwen2_moe", "qwen2_moe.tsr"},
                      Case{"internlm2", "internlm2.tsr"}, Case{"baichuan", "baichuan.tsr"},
                      Case{"baichuan-13b", "baichuan.tsr"}, Case{"exaone", "exaone.tsr"},
                      Case{"cohere-qknorm", "command_r.tsr"}, Case{"qwen3_moe-step2", "qwen3_moe.tsr"},
                      Case{"qwen3_moe-mlponly", "qwen3_moe.tsr"}),
    [](const ::testing::TestParamInfo<Case>& info) { return fixture_test_name(info.param.fixture); });

}  // namespace
}  // namespace tessera::test
