// The library's definitions on GGUFs as llama.cpp's own converter writes them
// (tests/fixtures/llamacpp-layout/, made by tools/fixtures/make_llamacpp_layout_fixtures.py
// from the Hugging Face fixtures): llama.cpp's tensor names, its q/k row order for
// interleaved RoPE, its metadata keys and architecture names. Each must compute what
// transformers computed for the folder it was converted from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"
#include "dsl/model_loader.h"
#include "models/fixture_logits.h"
#include "models/hf_fixture.h"
#include "models/llamacpp_greedy.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

struct LayoutCase {
  const char* fixture;     // tests/fixtures/hf/<fixture> and tests/fixtures/llamacpp-layout/<fixture>.gguf
  const char* definition;  // the models/ file the GGUF's general.architecture must choose
  // A hyper-parameter given with --set, for what the file states in a form the definition
  // does not read (EXAONE 4's per-layer window pattern, an array): "name=value", or "".
  const char* set = "";
  // Where llama.cpp itself runs the file otherwise than transformers (see the cases list),
  // the --set that has Tessera compute what llama.cpp computes, for GreedyIdsFollowLlamaCpp
  // only (it replaces `set` there), or "".
  const char* llamacpp_set = "";
  // Whether llama.cpp runs the file, and so has greedy ids for it (see the cases list).
  bool llamacpp_runs = true;
};

class LlamaCppLayoutTest : public ::testing::TestWithParam<LayoutCase> {
 protected:
  static void SetUpTestSuite() { host_ = new PluginHost(std::vector<std::string>{plugin_dir()}); }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }

  static std::unique_ptr<Model> load_gguf(DType kv_dtype = dsl::ModelSpec{}.kv_dtype,
                                          const std::string& set = GetParam().set) {
    dsl::ModelSpec spec;
    spec.kv_dtype = kv_dtype;
    spec.weights_path = source_path(std::string("tests/fixtures/llamacpp-layout/") + GetParam().fixture + ".gguf");
    spec.model_dirs = {source_path("models")};
    if (!set.empty()) {
      spec.overrides[set.substr(0, set.find('='))] = set.substr(set.find('=') + 1);
    }
    return dsl::load_model(spec);
  }

  // Every sequence's logits against transformers', fed `chunk` tokens per step.
  static void expect_each_sequence(size_t chunk) {
    const HfFixture f = load_hf_fixture(GetParam().fixture);
    const auto model = load_gguf();
    const Backend backend = open_backend(*host_, "cpu", 2);
    for (const HfSequence& s : f.sequences) expect_transformers_logits(*model, backend, s, chunk);
  }

  static PluginHost* host_;
};
PluginHost* LlamaCppLayoutTest::host_ = nullptr;

TEST_P(LlamaCppLayoutTest, ArchitectureChoosesTheDefinition) {
  const auto model = load_gguf();
  EXPECT_EQ(std::filesystem::path(model->arch_path()).filename().string(), GetParam().definition);
}

TEST_P(LlamaCppLayoutTest, DefinitionReadsEveryTensorOfTheFile) {
  const auto model = load_gguf();
  const FileCoverage& c = model->compiled().coverage;
  EXPECT_EQ(c.used_tensors, c.file_tensors);
  EXPECT_EQ(c.unused_tensors, std::vector<std::string>{});
}

TEST_P(LlamaCppLayoutTest, PrefillLogitsMatchTransformers) { expect_each_sequence(512); }

TEST_P(LlamaCppLayoutTest, DecodeLogitsMatchTransformers) { expect_each_sequence(1); }

// llama.cpp's own greedy continuation of the file (<fixture>.greedy.json, written by
// tools/fixtures/make_llamacpp_layout_greedy.py with a placeholder vocabulary added), followed
// step by step: Tessera's argmax is llama.cpp's id except at llama.cpp's near-ties. This
// checks the file's reading against llama.cpp's, not only against transformers'.
class LlamaCppGreedyTest : public LlamaCppLayoutTest {};

TEST_P(LlamaCppGreedyTest, GreedyIdsFollowLlamaCpp) {
  const std::string greedy =
      source_path(std::string("tests/fixtures/llamacpp-layout/") + GetParam().fixture + ".greedy.json");
  ASSERT_TRUE(std::filesystem::exists(greedy))
      << greedy << " is missing: run tools/fixtures/make_llamacpp_layout_greedy.py " << GetParam().fixture;
  const std::string set = *GetParam().llamacpp_set ? GetParam().llamacpp_set : GetParam().set;
  const auto model = load_gguf(DType::F16, set);  // F16: llama.cpp's default KV cache
  EXPECT_EQ(teacher_forced(*host_, "cpu", *model, read_cases(greedy), GetParam().fixture), "");
}

// A GGUF without any tokenizer.* metadata loads and runs from token ids; asking it for
// text names the file and what to do.
TEST(TokenizerlessGguf, LoadsAndRefusesTextWithTheReason) {
  dsl::ModelSpec spec;
  spec.weights_path = source_path("tests/fixtures/llamacpp-layout/olmo.gguf");
  spec.model_dirs = {source_path("models")};
  const auto model = dsl::load_model(spec);
  EXPECT_FALSE(model->has_tokenizer());
  EXPECT_EQ(tokenizer_error(*model), spec.weights_path +
                                         ": the file has no tokenizer (no tokenizer.ggml.* metadata); it runs from "
                                         "token ids only (through the library); for text, copy one in with "
                                         "`tessera convert FILE --tokenizer-from GGUF -o OUT`");
}

// Not here, as llama.cpp's converter writes what llama.cpp computes, which is not what
// these fixtures ask of transformers: mistral and starcoder2 (no sliding window in the
// file: llama.cpp attends to every position), gemma2 (no query_pre_attn_scalar: llama.cpp
// assumes head_dim, the fixture has 24; tests/dsl/gemma2_definition_test.cpp), phi2 (the
// converter writes feed_forward_length 4 * d_model, wrong for the fixture's 64; llama.cpp
// refuses the file too). Not convertible by it: gpt2, gpt_neox, cohere2 (it reads
// transformers 4 config keys), mpt and gptj (no converter), gemma3 (needs a
// tokenizer.json), smollm3 (interval 2; see nope4).
// llama.cpp runs two of the files listed otherwise than transformers, so their greedy ids
// are held to llama.cpp's reading (llamacpp_set): phi3, whose sliding window llama.cpp
// ignores (it disables Phi-3 SWA and attends to every position), and exaone4, windowed by
// llama.cpp only with 64 layers (the 32B), so every layer of the 4-layer fixture rotates
// and attends globally.
// llama.cpp picks Baichuan's positions by the layer count (32: RoPE, 40: ALiBi, others:
// none), so it runs the 2-layer baichuan without positions (rotated=false here);
// baichuan-13b (40 layers) attends with ALiBi in both. llama.cpp does not run
// cohere-qknorm: it reads Command R+'s q/k norms only in files of 64 layers or more, and
// refuses the 2-layer file's as tensors too many.
const LayoutCase kLayoutCases[] = {
    LayoutCase{"llama", "llama.tsr"}, LayoutCase{"llama-rope-linear", "llama.tsr"},
    LayoutCase{"llama3-rope", "llama.tsr"}, LayoutCase{"qwen2", "qwen2.tsr"}, LayoutCase{"qwen2-yarn", "qwen2.tsr"},
    LayoutCase{"qwen3", "qwen3.tsr"}, LayoutCase{"phi3", "phi3.tsr", "", "window=0"},
    LayoutCase{"gemma", "gemma.tsr"}, LayoutCase{"bloom", "bloom.tsr"}, LayoutCase{"stablelm", "stablelm.tsr"},
    LayoutCase{"stablelm-nobias", "stablelm.tsr"}, LayoutCase{"olmo", "olmo.tsr"}, LayoutCase{"olmo2", "olmo2.tsr"},
    LayoutCase{"granite", "granite.tsr"}, LayoutCase{"smollm3-nope4", "smollm3.tsr"},
    LayoutCase{"cohere", "command_r.tsr"}, LayoutCase{"nemotron", "nemotron.tsr"},
    LayoutCase{"falcon", "falcon.tsr"}, LayoutCase{"falcon-40b", "falcon.tsr"},
    LayoutCase{"gpt_bigcode", "starcoder.tsr"}, LayoutCase{"exaone4", "exaone4.tsr", "swa_pattern=2", "window=0"},
    LayoutCase{"glm4", "glm4.tsr"}, LayoutCase{"arcee", "arcee.tsr"}, LayoutCase{"mixtral", "llama.tsr"},
    LayoutCase{"qwen3_moe", "qwen3_moe.tsr"}, LayoutCase{"qwen2_moe", "qwen2_moe.tsr"},
    LayoutCase{"internlm2", "internlm2.tsr"}, LayoutCase{"baichuan", "baichuan.tsr", "", "rotated=false"},
    LayoutCase{"baichuan-13b", "baichuan.tsr"}, LayoutCase{"exaone", "exaone.tsr"},
    LayoutCase{"cohere-qknorm", "command_r.tsr", "", "", false}
};

std::vector<LayoutCase> cases_llamacpp_runs() {
  std::vector<LayoutCase> run;
  for (const LayoutCase& c : kLayoutCases) {
    if (c.llamacpp_runs) run.push_back(c);
  }
  return run;
}

std::string case_name(const ::testing::TestParamInfo<LayoutCase>& info) { return fixture_test_name(info.param.fixture); }

INSTANTIATE_TEST_SUITE_P(Library, LlamaCppLayoutTest, ::testing::ValuesIn(kLayoutCases), case_name);
INSTANTIATE_TEST_SUITE_P(Library, LlamaCppGreedyTest, ::testing::ValuesIn(cases_llamacpp_runs()), case_name);

}  // namespace
}  // namespace tessera::test
