// The numbers `tessera check` prints, computed by hand for stories260K and TinyLlama.
#include <gtest/gtest.h>

#include "llama_fixture.h"

namespace tessera::test {
namespace {

// stories260K per layer: norms 2 * 64, wq 64*64, wk and wv 32*64, wo 64*64,
// three FFN matrices 172*64 = 45,440; times 5 layers, plus the embedding and its
// copy as output (512*64 each) and the final norm (64).
constexpr int64_t kStoriesParams = 5 * (2 * 64 + 4096 + 2 * 2048 + 4096 + 3 * 11008) + 2 * 32768 + 64;

TEST(Summary, CountsTheParametersOfStories260K) {
  static_assert(kStoriesParams == 292'800);
  const FakeWeightFile file = stories260k_fake();
  const dsl::ModelSummary s = dsl::summarize(compile_llama(file));
  EXPECT_EQ(s.n_params, kStoriesParams);
  EXPECT_EQ(s.n_weight_tensors, 48);
  EXPECT_EQ(s.weight_bytes, kStoriesParams * 4);
}

TEST(Summary, CountsATiedWeightOnce) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("output.weight");
  const dsl::ModelSummary s = dsl::summarize(compile_llama(file));
  EXPECT_EQ(s.n_params, kStoriesParams - 32768);  // 260,032: the llama2.c checkpoint's floats
}

TEST(Summary, CountsMatmulAndAttentionFlopsPerToken) {
  const FakeWeightFile file = stories260k_fake();
  const dsl::ModelSummary s = dsl::summarize(compile_llama(file), 512);
  // Per layer 2 * (64*64 + 2 * 32*64 + 64*64 + 3 * 172*64) = 90,624; the output 2 * 512*64.
  EXPECT_EQ(s.matmul_flops_per_token, 5 * 90'624 + 65'536);
  // 4 * heads * head_dim * context per layer.
  EXPECT_EQ(s.attention_flops_per_token, 5 * 4 * 8 * 8 * 512);
  EXPECT_EQ(s.flops_per_token, 518'656 + 655'360);
  EXPECT_EQ(s.context_length, 512);
}

TEST(Summary, StatesAttentionFlopsAtTheModelsContextByDefault) {
  const FakeWeightFile file = stories260k_fake();
  const dsl::ModelSummary s = dsl::summarize(compile_llama(file));
  EXPECT_EQ(s.context_length, 128);
  EXPECT_EQ(s.attention_flops_per_token, 1280 * 128);
}

TEST(Summary, CountsKvBytesPerToken) {
  const FakeWeightFile file = stories260k_fake();
  EXPECT_EQ(dsl::summarize(compile_llama(file)).kv_bytes_per_token, 2 * 5 * 4 * 8 * 4);
  EXPECT_EQ(dsl::summarize(compile_llama(file, DType::F16)).kv_bytes_per_token, 2 * 5 * 4 * 8 * 2);
}

TEST(Summary, CountsNodesInAllAndPerLayer) {
  const FakeWeightFile file = stories260k_fake();
  const dsl::ModelSummary s = dsl::summarize(compile_llama(file));
  EXPECT_EQ(s.n_nodes, 89);
  EXPECT_EQ(s.op_counts.at({OpKind::MatMul, ""}), 36);
  EXPECT_EQ(s.first_layer, 0);
  const std::map<dsl::OpCountKey, int> per_layer = {
      {{OpKind::RmsNorm, ""}, 2}, {{OpKind::MatMul, ""}, 7},  {{OpKind::Add, ""}, 2},      {{OpKind::SwiGlu, ""}, 1},
      {{OpKind::Rope, ""}, 2},    {{OpKind::KvWrite, ""}, 2}, {{OpKind::Attention, ""}, 1}};
  EXPECT_EQ(s.ops_per_layer, per_layer);
}

TEST(Summary, CountsTinyLlamaParametersAndKvBytes) {
  const dsl::ModelSummary s = dsl::summarize(compile_tinyllama());
  EXPECT_EQ(s.n_params, 1'100'048'384);
  EXPECT_EQ(s.kv_bytes_per_token, 2 * 22 * 4 * 64 * 4);
  EXPECT_EQ(dsl::summarize(compile_tinyllama(DType::F32, DType::F16)).kv_bytes_per_token, 2 * 22 * 4 * 64 * 2);
}

TEST(Summary, FormatsWhatCheckPrints) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  EXPECT_EQ(dsl::format_summary(m, dsl::summarize(m, 512)),
            "model llama (" + source_path("models/llama.tsr") + "), arch llama\n"
            "hyper-parameters:\n"
            "  d_model     64              llama.embedding_length\n"
            "  n_layers    5               llama.block_count\n"
            "  n_heads     8               llama.attention.head_count\n"
            "  n_kv_heads  4               llama.attention.head_count_kv\n"
            "  d_ff        172             llama.feed_forward_length\n"
            "  n_vocab     512\n"
            "  head_dim    8               llama.attention.key_length\n"
            "  n_rot       8               llama.rope.dimension_count\n"
            "  rope_theta  10000.0         llama.rope.freq_base\n"
            "  rope_scale  1.0             llama.rope.scaling.factor\n"
            "  window      0               llama.attention.sliding_window\n"
            "  norm_eps    1e-05           llama.attention.layer_norm_rms_epsilon\n"
            "  n_ctx       128             llama.context_length\n"
            "  low_freq    0.0             llama.rope.scaling.low_freq_factor\n"
            "  high_freq   4.0             llama.rope.scaling.high_freq_factor\n"
            "  orig_ctx    128             llama.rope.scaling.original_context_length\n"
            "  n_experts   0               llama.expert_count\n"
            "  n_used      0               llama.expert_used_count\n"
            "  d_expert    172\n"
            "  norm_topk   1\n"
            "weights: 48 tensors, 292,800 parameters, 1.12 MiB\n"
            "tensors: 48 of 48 in the file used\n"
            "graph: 89 nodes, 5 attention layers (get_rows 2, rms_norm 11, matmul 36, add 10, swiglu 5, "
            "rope 10, kv_write 10, attention 5)\n"
            "per layer: 17 nodes (rms_norm 2, matmul 7, add 2, swiglu 1, rope 2, kv_write 2, attention 1)\n"
            "FLOPs per token: 518,656 in matmuls + 1,280 x context in attention = 1,174,016 at context 512\n"
            "KV cache: 1,280 bytes per token (f32), 640.00 KiB at context 512\n");
}

TEST(Summary, SaysWhatOfTheFileIsLeftUnread) {
  FakeWeightFile file = stories260k_fake();
  file.add_tensor("blk.0.attn_q.bias", {64});
  file.set_uint("llama.attention.value_length", 16);
  const CompiledModel m = compile_llama(file);
  const std::string text = dsl::format_summary(m, dsl::summarize(m));
  EXPECT_NE(text.find("\nweights: 48 tensors, 292,800 parameters, 1.12 MiB\n"
                      "tensors: 48 of 49 in the file used; not used: blk.0.attn_q.bias\n"
                      "metadata not read: llama.attention.value_length = 16\n"
                      "graph: "),
            std::string::npos)
      << text;
}

TEST(Summary, SaysNothingOfAFileWithoutOne) {
  const CompiledModel m = compile_tinyllama();
  EXPECT_EQ(dsl::format_summary(m, dsl::summarize(m)).find("tensors:"), std::string::npos);
}

}  // namespace
}  // namespace tessera::test
