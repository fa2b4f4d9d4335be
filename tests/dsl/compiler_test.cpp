// Compiling models/llama.tsr against a stories260K-shaped file: the graph the executor
// runs (ops, shapes, step inputs, weights, KV caches, params, labels).
#include <cmath>

#include <gtest/gtest.h>

#include "llama_fixture.h"

namespace tessera::test {
namespace {

int count_ops(const Graph& g, OpKind op) {
  int n = 0;
  for (const GraphNode& node : g.nodes()) n += node.op == op;
  return n;
}

std::vector<const GraphNode*> nodes_of(const Graph& g, OpKind op) {
  std::vector<const GraphNode*> out;
  for (const GraphNode& node : g.nodes()) {
    if (node.op == op) out.push_back(&node);
  }
  return out;
}

int count_role(const Graph& g, TensorRole role) {
  int n = 0;
  for (const GraphTensor& t : g.tensors()) n += t.role == role;
  return n;
}

const GraphTensor* find_tensor(const Graph& g, const std::string& name) {
  for (const GraphTensor& t : g.tensors()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TEST(CompileLlama, HasTheNodesOfFiveLayers) {
  const FakeWeightFile file = stories260k_fake();
  const Graph& g = compile_llama(file).graph;
  EXPECT_EQ(count_ops(g, OpKind::GetRows), 2);  // embedding, output rows
  EXPECT_EQ(count_ops(g, OpKind::RmsNorm), 11);
  EXPECT_EQ(count_ops(g, OpKind::MatMul), 36);
  EXPECT_EQ(count_ops(g, OpKind::Rope), 10);
  EXPECT_EQ(count_ops(g, OpKind::KvWrite), 10);
  EXPECT_EQ(count_ops(g, OpKind::Attention), 5);
  EXPECT_EQ(count_ops(g, OpKind::Add), 10);
  EXPECT_EQ(count_ops(g, OpKind::SwiGlu), 5);
  EXPECT_EQ(g.nodes().size(), 89u);
}

TEST(CompileLlama, LogitsAreOneRowPerOutputByVocabulary) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  ASSERT_GE(m.graph.logits(), 0);
  const GraphTensor& logits = m.graph.tensor(m.graph.logits());
  EXPECT_EQ(logits.shape, (Shape{sym(SymDim::Outputs), 512}));
  EXPECT_EQ(logits.dtype, DType::F32);
  EXPECT_EQ(logits.role, TensorRole::Activation);
  EXPECT_EQ(m.graph.nodes().back().output, m.graph.logits());
  EXPECT_EQ(m.n_vocab, 512);
  EXPECT_EQ(m.n_layers, 5);
  EXPECT_EQ(m.n_ctx, 128);  // what the converter wrote, not the trained 512
  EXPECT_EQ(m.name, "llama");
  EXPECT_EQ(m.arch, "llama");
}

TEST(CompileLlama, CreatesEveryStepInputOnceWithItsShape) {
  const FakeWeightFile file = stories260k_fake();
  const Graph& g = compile_llama(file).graph;
  const int64_t T = sym(SymDim::Tokens);
  const std::pair<StepInput, Shape> expected[] = {
      {StepInput::TokenIds, {T}},
      {StepInput::Positions, {T}},
      {StepInput::KvSlots, {T}},
      {StepInput::TokenSeq, {T}},
      {StepInput::BlockTables, {sym(SymDim::Seqs), sym(SymDim::MaxBlocksPerSeq)}},
      {StepInput::OutputRows, {sym(SymDim::Outputs)}},
  };
  for (const auto& [input, shape] : expected) {
    const int id = g.step_input(input);
    ASSERT_GE(id, 0);
    EXPECT_EQ(g.tensor(id).shape, shape);
    EXPECT_EQ(g.tensor(id).dtype, DType::I32);
  }
  EXPECT_EQ(count_role(g, TensorRole::StepInput), 6);
}

TEST(CompileLlama, OmitsStepInputsTheModelDoesNotUse) {
  const auto model = dsl::parse_model(R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
                                      "tiny.tsr");
  const Graph g = dsl::compile_model(*model, dsl::CompileOptions{}).graph;
  EXPECT_GE(g.step_input(StepInput::TokenIds), 0);
  EXPECT_GE(g.step_input(StepInput::OutputRows), 0);
  EXPECT_EQ(g.step_input(StepInput::Positions), -1);
  EXPECT_EQ(g.step_input(StepInput::BlockTables), -1);
}

TEST(CompileLlama, BindsWeightsToFileNamesShapesAndDtypes) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("blk.3.attn_q.weight");
  file.add_tensor("blk.3.attn_q.weight", {64, 64}, DType::Q8_0);
  const Graph g = compile_llama(file).graph;
  EXPECT_EQ(count_role(g, TensorRole::Weight), 48);
  const GraphTensor* wq = find_tensor(g, "blk.3.wq");
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->role, TensorRole::Weight);
  EXPECT_EQ(wq->file_name, "blk.3.attn_q.weight");
  EXPECT_EQ(wq->shape, (Shape{64, 64}));
  EXPECT_EQ(wq->dtype, DType::Q8_0);
  const GraphTensor* down = find_tensor(g, "blk.4.w_down");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->shape, (Shape{64, 172}));
  EXPECT_EQ(find_tensor(g, "tok_embd")->file_name, "token_embd.weight");
}

TEST(CompileLlama, TiesTheOutputToTheEmbeddingWhenTheFileHasNoOutput) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("output.weight");
  const Graph g = compile_llama(file).graph;
  EXPECT_EQ(count_role(g, TensorRole::Weight), 47);
  const int embedding = g.nodes().front().inputs[0];
  EXPECT_EQ(g.tensor(embedding).file_name, "token_embd.weight");
  EXPECT_EQ(g.nodes().back().op, OpKind::MatMul);
  EXPECT_EQ(g.nodes().back().inputs[1], embedding);
}

TEST(CompileLlama, MakesAKAndAVCachePerAttentionLayer) {
  const FakeWeightFile file = stories260k_fake();
  const Graph g = compile_llama(file, DType::F16).graph;
  EXPECT_EQ(count_role(g, TensorRole::Cache), 10);
  const auto writes = nodes_of(g, OpKind::KvWrite);
  ASSERT_EQ(writes.size(), 10u);
  for (size_t i = 0; i < writes.size(); ++i) {
    const GraphTensor& cache = g.tensor(writes[i]->output);
    EXPECT_EQ(cache.role, TensorRole::Cache);
    EXPECT_EQ(cache.layer, static_cast<int>(i / 2));
    EXPECT_EQ(cache.is_value, i % 2 == 1);
    EXPECT_EQ(cache.dtype, DType::F16);
    EXPECT_EQ(cache.shape, (Shape{sym(SymDim::CacheBlocks), sym(SymDim::BlockSize), 32}));
    ASSERT_EQ(writes[i]->inputs.size(), 2u);
    EXPECT_EQ(g.tensor(writes[i]->inputs[0]).shape, (Shape{sym(SymDim::Tokens), 32}));
    EXPECT_EQ(writes[i]->inputs[1], g.step_input(StepInput::KvSlots));
    const auto& p = std::get<KvWriteParams>(writes[i]->params);
    EXPECT_EQ(p.n_kv_heads, 4);
    EXPECT_EQ(p.head_dim, 8);
    EXPECT_EQ(p.block_size, 0);
  }
}

TEST(CompileLlama, AttentionReadsBothCachesThroughTheBlockTables) {
  const FakeWeightFile file = stories260k_fake();
  const Graph g = compile_llama(file).graph;
  const auto attention = nodes_of(g, OpKind::Attention);
  const auto writes = nodes_of(g, OpKind::KvWrite);
  ASSERT_EQ(attention.size(), 5u);
  const GraphNode& a = *attention[2];
  ASSERT_EQ(a.inputs.size(), 6u);
  EXPECT_EQ(g.tensor(a.inputs[0]).shape, (Shape{sym(SymDim::Tokens), 64}));
  EXPECT_EQ(a.inputs[1], writes[4]->output);
  EXPECT_EQ(a.inputs[2], writes[5]->output);
  EXPECT_EQ(a.inputs[3], g.step_input(StepInput::Positions));
  EXPECT_EQ(a.inputs[4], g.step_input(StepInput::TokenSeq));
  EXPECT_EQ(a.inputs[5], g.step_input(StepInput::BlockTables));
  EXPECT_EQ(g.tensor(a.output).shape, (Shape{sym(SymDim::Tokens), 64}));
  const auto& p = std::get<AttentionParams>(a.params);
  EXPECT_EQ(p.n_heads, 8);
  EXPECT_EQ(p.n_kv_heads, 4);
  EXPECT_EQ(p.head_dim, 8);
  EXPECT_FLOAT_EQ(p.scale, static_cast<float>(1.0 / std::sqrt(8.0)));
  EXPECT_EQ(p.block_size, 0);
  EXPECT_EQ(p.n_seqs, 0);
  EXPECT_EQ(p.max_blocks_per_seq, 0);
  EXPECT_EQ(p.window, 0);
  EXPECT_EQ(p.softcap, 0.0f);
}

TEST(CompileLlama, RopeRotatesQueryAndKeyHeadsInterleaved) {
  const FakeWeightFile file = stories260k_fake();
  const Graph g = compile_llama(file).graph;
  const auto ropes = nodes_of(g, OpKind::Rope);
  ASSERT_EQ(ropes.size(), 10u);
  const auto& q = std::get<RopeParams>(ropes[0]->params);
  const auto& k = std::get<RopeParams>(ropes[1]->params);
  EXPECT_EQ(q.n_heads, 8);
  EXPECT_EQ(k.n_heads, 4);
  EXPECT_EQ(q.head_dim, 8);
  EXPECT_EQ(q.n_rot, 8);
  EXPECT_FLOAT_EQ(q.theta, 10000.0f);
  EXPECT_FLOAT_EQ(q.freq_scale, 1.0f);
  EXPECT_EQ(q.pairing, TSR_ROPE_INTERLEAVED);
  EXPECT_EQ(ropes[0]->inputs[1], g.step_input(StepInput::Positions));
  EXPECT_EQ(g.tensor(ropes[1]->output).shape, (Shape{sym(SymDim::Tokens), 32}));
}

TEST(CompileLlama, NormsUseTheEpsilonOfTheFile) {
  const FakeWeightFile file = stories260k_fake();
  const Graph g = compile_llama(file).graph;
  for (const GraphNode* n : nodes_of(g, OpKind::RmsNorm)) {
    EXPECT_FLOAT_EQ(std::get<NormParams>(n->params).eps, 1e-5f);
    EXPECT_EQ(std::get<NormParams>(n->params).weight_plus_one, 0);
  }
}

TEST(CompileLlama, InfersTheShapeOfEveryNodeOutput) {
  const FakeWeightFile file = stories260k_fake();
  const Graph g = compile_llama(file).graph;
  const int64_t T = sym(SymDim::Tokens);
  EXPECT_EQ(g.tensor(nodes_of(g, OpKind::SwiGlu)[0]->output).shape, (Shape{T, 172}));
  for (const GraphNode* n : nodes_of(g, OpKind::Add)) EXPECT_EQ(g.tensor(n->output).shape, (Shape{T, 64}));
  const auto rows = nodes_of(g, OpKind::GetRows);
  EXPECT_EQ(g.tensor(rows[0]->output).shape, (Shape{T, 64}));
  EXPECT_EQ(g.tensor(rows[1]->output).shape, (Shape{sym(SymDim::Outputs), 64}));
}

TEST(CompileLlama, LabelsNodesWithTheirStatementAndLayer) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  const auto ropes = nodes_of(m.graph, OpKind::Rope);
  // The rope is block rotate's value, for block decoder_layer's q of layer 3.
  EXPECT_EQ(ropes[6]->label,
            "layer 3: rotate: return rope(t, rope_freqs, heads: heads, dims: n_rot, theta: rope_theta, "
            "scale: 1.0 / if(low_freq, 1.0, rope_scale), pairing: if(hf, neox, interleaved), "
            "llama3_factor: if(low_freq, rope_scale, 0.0), llama3_low_freq_factor: low_freq, "
            "llama3_high_freq_factor: high_freq, llama3_orig_ctx: orig_ctx)");
  EXPECT_EQ(m.graph.nodes().front().label, "x = embed(tok_embd)");
  EXPECT_EQ(m.graph.nodes().back().label, "logits = linear(rms_norm(x, out_norm, eps: norm_eps), output)");
  EXPECT_EQ(m.graph.tensor(ropes[6]->output).name, "blk.3.q");
}

TEST(CompileLlama, RecordsTheLayerOfEachNode) {
  const FakeWeightFile file = stories260k_fake();
  const CompiledModel m = compile_llama(file);
  ASSERT_EQ(m.node_layers.size(), 89u);
  EXPECT_EQ(m.node_layers.front(), -1);
  for (size_t i = 1; i < 86; ++i) EXPECT_EQ(m.node_layers[i], static_cast<int>((i - 1) / 17)) << "node " << i;
  EXPECT_EQ(m.node_layers[86], -1);
  EXPECT_EQ(m.node_layers.back(), -1);
}

TEST(CompileLlama, RefusesAFileTensorOfAnotherShape) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("blk.0.attn_q.weight");
  file.add_tensor("blk.0.attn_q.weight", {64, 32});
  try {
    compile_llama(file);
    FAIL() << "accepted a weight of the wrong shape";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "weight 'blk.0.attn_q.weight' has shape [64, 32] in the file but the model declares "
              "[64, 64] (n_heads * head_dim, d_model)");
    EXPECT_EQ(e.file(), source_path("models/llama.tsr"));
    EXPECT_EQ(e.line(), llama_line_containing("\"blk.{i}.attn_q.weight\""));
  }
}

TEST(CompileLlama, RefusesAFileWithoutADeclaredTensor) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("blk.2.attn_v.weight");
  try {
    compile_llama(file);
    FAIL() << "accepted a file without blk.2.attn_v.weight";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "weight 'blk.2.attn_v.weight' is not in the weights file stories260K.gguf; did you mean "
              "'blk.2.attn_q.weight'?");
    EXPECT_EQ(e.line(), llama_line_containing("\"blk.{i}.attn_v.weight\""));
  }
}

// The dense feed-forward is optional (a file with experts has none) but a file without
// experts needs it: refused where the dense branch reads it.
TEST(CompileLlama, RefusesADenseFileWithoutAFeedForwardTensor) {
  FakeWeightFile file = stories260k_fake();
  file.remove_tensor("blk.2.ffn_up.weight");
  try {
    compile_llama(file);
    FAIL() << "accepted a file without blk.2.ffn_up.weight";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(), "weight 'w_up' ('blk.2.ffn_up.weight') is not in the weights file stories260K.gguf; "
                           "`else none` lets it be absent only where an optional argument takes it, such as the "
                           "bias of linear");
    EXPECT_EQ(e.line(), llama_line_containing("return if(n_experts > 0, experts(h, i)"));
  }
}

TEST(CompileLlama, HintsAtTheFileTensorAMisspeltNameMeant) {
  const auto model = dsl::parse_model(R"(model tiny
hparams { d = 64  v = 512 }
weights { emb [v, d] = "token_emb.weight" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
                                      "tiny.tsr");
  const FakeWeightFile file = stories260k_fake();
  dsl::CompileOptions options;
  options.weights = &file;
  try {
    dsl::compile_model(*model, options);
    FAIL() << "accepted a name the file does not have";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "weight 'token_emb.weight' is not in the weights file stories260K.gguf; did you mean "
              "'token_embd.weight'?");
  }
}

TEST(CompileWithoutFile, GivesMatricesTheWeightDtypeAndKeepsVectorsF32) {
  const Graph g = compile_tinyllama(DType::F16).graph;
  EXPECT_EQ(find_tensor(g, "blk.21.wk")->dtype, DType::F16);
  EXPECT_EQ(find_tensor(g, "blk.21.wk")->shape, (Shape{256, 2048}));
  EXPECT_EQ(find_tensor(g, "blk.21.wk")->file_name, "blk.21.attn_k.weight");
  EXPECT_EQ(find_tensor(g, "blk.0.attn_norm")->dtype, DType::F32);
  EXPECT_EQ(find_tensor(g, "output")->file_name, "output.weight");  // untied without a file
}

TEST(CompileWithoutFile, RefusesRowsThatAreNotWholeQuantisedBlocks) {
  dsl::CompileOptions options;
  options.overrides = {{"d_model", "64"}, {"n_layers", "1"}, {"n_heads", "8"}, {"d_ff", "172"}, {"n_vocab", "512"}};
  options.weight_dtype = DType::Q8_0;
  try {
    dsl::compile_model(*llama_definition(), options);
    FAIL() << "accepted q8_0 rows of 172 elements";
  } catch (const dsl::DslError& e) {
    EXPECT_EQ(e.message(),
              "weight 'blk.0.ffn_down.weight' has rows of 172 elements, not a whole number of q8_0 "
              "blocks of 32");
  }
}

}  // namespace
}  // namespace tessera::test
