// models/llama.tsr against the real stories260K files of the test data (GGUF, and the
// llama2.c checkpoint with its tokenizer), read by open_weight_file.
#include <filesystem>

#include <gtest/gtest.h>

#include "llama_fixture.h"

namespace tessera::test {
namespace {

TEST(RealWeights, Stories260KGgufCompilesToTheLlamaGraph) {
  const std::string path = testdata_path("stories260K/stories260K.gguf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no test data at " << path;
  const auto file = open_weight_file(path);
  const CompiledModel m = compile_llama(*file);
  EXPECT_EQ(m.graph.nodes().size(), 89u);
  EXPECT_EQ(m.n_vocab, 512);
  EXPECT_EQ(m.n_layers, 5);
  EXPECT_EQ(m.find_hparam("n_kv_heads")->value, 4);
  EXPECT_EQ(m.find_hparam("d_ff")->value, 172);
  EXPECT_EQ(m.find_hparam("n_ctx")->value, 128);
  const dsl::ModelSummary s = dsl::summarize(m, 512);
  EXPECT_EQ(s.n_params, 292'800);
  EXPECT_EQ(s.kv_bytes_per_token, 1280);
  EXPECT_EQ(s.flops_per_token, 1'174'016);
}

TEST(RealWeights, Llama2cCheckpointCompilesToTheLlamaGraph) {
  const std::string path = testdata_path("stories260K/stories260K.bin");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no test data at " << path;
  const auto file = open_weight_file(path, testdata_path("stories260K/tok512.bin"));
  const CompiledModel m = compile_llama(*file);
  EXPECT_EQ(m.graph.nodes().size(), 89u);
  EXPECT_EQ(m.n_vocab, 512);
  EXPECT_EQ(m.n_ctx, 512);  // the checkpoint's real seq_len
}

}  // namespace
}  // namespace tessera::test
