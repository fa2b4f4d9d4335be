// The naive reference transformer: the LLaMA path against the golden stories260K logits,
// and the other knobs on toy weights whose outputs can be worked out by hand.
#include "support/naive_transformer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "support/golden.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using Logits = std::vector<std::vector<float>>;

NaiveMatrix matrix(int64_t rows, int64_t cols, std::vector<float> values) {
  return NaiveMatrix{.rows = rows, .cols = cols, .values = std::move(values)};
}
NaiveMatrix filled(int64_t rows, int64_t cols, float value) {
  return matrix(rows, cols, std::vector<float>(size_t(rows * cols), value));
}
NaiveMatrix identity(int64_t n) {
  NaiveMatrix m = filled(n, n, 0.0f);
  for (int64_t i = 0; i < n; ++i) m.values[i * n + i] = 1.0f;
  return m;
}

// A one-layer toy to follow by hand: 4 tokens embedded as the rows of a 4x4 Hadamard
// matrix (rms exactly 1, so an eps-0 RMS norm of weight 1 leaves them as they are),
// q = k = 0 (every visible key weighs the same), v and attn_output identity, a zero
// feed-forward and no final norm: logits[t] = e[t] + mean of the visible e[j].
NaiveConfig toy_config() {
  return NaiveConfig{.n_layers = 1, .d_model = 4, .n_heads = 1, .d_ff = 1, .n_vocab = 4,
                     .norm_eps = 0.0, .position = NaivePosition::none,
                     .ffn = NaiveFfn::relu, .final_norm = false};
}

InMemoryWeights toy_weights() {
  InMemoryWeights w;
  w.set("token_embd.weight", matrix(4, 4, {1, 1, 1, 1,  1, -1, 1, -1,
                                           1, 1, -1, -1,  1, -1, -1, 1}));
  w.set("blk.0.attn_norm.weight", filled(1, 4, 1.0f));
  w.set("blk.0.ffn_norm.weight", filled(1, 4, 1.0f));
  w.set("blk.0.attn_q.weight", filled(4, 4, 0.0f));
  w.set("blk.0.attn_k.weight", filled(4, 4, 0.0f));
  w.set("blk.0.attn_v.weight", identity(4));
  w.set("blk.0.attn_output.weight", identity(4));
  w.set("blk.0.ffn_up.weight", filled(1, 4, 0.0f));
  w.set("blk.0.ffn_down.weight", filled(4, 1, 0.0f));
  w.set("output.weight", identity(4));
  return w;
}

const std::vector<int32_t> kFourTokens = {0, 1, 2, 3};

// ---- the LLaMA path on the real model -----------------------------------------------

class StoriesNaive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    file_ = GgufFile::open(testdata_path("stories260K/stories260K.gguf")).release();
  }
  static void TearDownTestSuite() {
    delete file_;
    file_ = nullptr;
  }
  static GgufFile* file_;
};
GgufFile* StoriesNaive::file_ = nullptr;

TEST_F(StoriesNaive, ConfigFromGgufHasTheLlamaSizes) {
  const NaiveConfig c = naive_config_from_gguf(*file_);
  EXPECT_EQ(c.n_layers, 5);
  EXPECT_EQ(c.d_model, 64);
  EXPECT_EQ(c.n_heads, 8);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.d_ff, 172);
  EXPECT_EQ(c.n_vocab, 512);
  EXPECT_EQ(c.rope_dims, 8);
  EXPECT_EQ(c.norm_eps, static_cast<double>(1e-5f));
  EXPECT_FALSE(c.tied_output);  // the converter wrote a copy of the embedding
}

TEST_F(StoriesNaive, LogitsMatchGoldenWithin1e4) {
  const std::vector<int32_t> tokens = golden_logit_tokens();
  const std::vector<float> golden = load_golden_logits();
  const Logits logits = naive_logits(naive_config_from_gguf(*file_), WeightFileWeights(*file_),
                                     tokens);
  ASSERT_EQ(logits.size(), 68u);
  ASSERT_EQ(golden.size(), 68u * 512u);
  for (size_t t = 0; t < logits.size(); ++t) {
    ASSERT_EQ(logits[t].size(), 512u);
    for (size_t v = 0; v < 512; ++v)
      ASSERT_NEAR(logits[t][v], golden[t * 512 + v], 1e-4) << "position " << t << " token " << v;
  }
}

// ---- positions ----------------------------------------------------------------------

TEST(NaiveAlibi, SixHeadsTakeFourThenTheOddOfEight) {
  EXPECT_THAT(naive_alibi_slopes(6, 8.0),
              ::testing::ElementsAre(0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125));
}

TEST(NaiveAlibi, EightHeadsAreHalvingPowers) {
  EXPECT_THAT(naive_alibi_slopes(8, 8.0),
              ::testing::ElementsAre(0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125,
                                     0.00390625));
}

TEST(NaiveAlibi, NearerKeyWeighsMoreInAttention) {
  // One head, slope 2^-max_bias = ln 3: at query 1 the key 0 scores -ln 3, so the
  // weights are 1/4 (e0) and 3/4 (e1); logits[1] = e1 + e0/4 + 3 e1/4.
  NaiveConfig c = toy_config();
  c.position = NaivePosition::alibi;
  c.alibi_max_bias = -std::log2(std::log(3.0));
  const Logits l = naive_logits(c, toy_weights(), std::vector<int32_t>{0, 1});
  const std::vector<float> expected = {2.0f, -1.5f, 2.0f, -1.5f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(l[1][i], expected[i], 1e-6) << i;
}

TEST(NaiveRope, PartialNeoxRotatesPairsHalfApartAndKeepsTheRest) {
  // rope_dims 4 of 8, theta 100: pair (0, 2) turns by pos, pair (1, 3) by pos / 10.
  // Position 2 with linear scaling 2 is position 1.
  NaiveConfig c{.head_dim = 8, .rope_theta = 100.0, .rope_dims = 4,
                .rope_pairing = NaiveRopePairing::neox, .rope_linear_scale = 2.0};
  std::vector<double> head = {1, 2, 3, 4, 5, 6, 7, 8};
  naive_rope(head, 2, c);
  EXPECT_NEAR(head[0], 1 * std::cos(1.0) - 3 * std::sin(1.0), 1e-12);
  EXPECT_NEAR(head[2], 1 * std::sin(1.0) + 3 * std::cos(1.0), 1e-12);
  EXPECT_NEAR(head[1], 2 * std::cos(0.1) - 4 * std::sin(0.1), 1e-12);
  EXPECT_NEAR(head[3], 2 * std::sin(0.1) + 4 * std::cos(0.1), 1e-12);
  EXPECT_EQ(head[4], 5.0);
  EXPECT_EQ(head[5], 6.0);
  EXPECT_EQ(head[6], 7.0);
  EXPECT_EQ(head[7], 8.0);
}

TEST(NaiveRope, InterleavedRotatesAdjacentPairs) {
  NaiveConfig c{.rope_theta = 100.0};
  std::vector<double> head = {1, 2, 3, 4};
  naive_rope(head, 1, c);
  EXPECT_NEAR(head[0], 1 * std::cos(1.0) - 2 * std::sin(1.0), 1e-12);
  EXPECT_NEAR(head[1], 1 * std::sin(1.0) + 2 * std::cos(1.0), 1e-12);
  EXPECT_NEAR(head[2], 3 * std::cos(0.1) - 4 * std::sin(0.1), 1e-12);
  EXPECT_NEAR(head[3], 3 * std::sin(0.1) + 4 * std::cos(0.1), 1e-12);
}

// ---- attention mask -----------------------------------------------------------------

TEST(NaiveWindow, KeyVisibleOnlyInsideTheWindow) {
  EXPECT_TRUE(naive_key_visible(5, 4, 2));
  EXPECT_TRUE(naive_key_visible(5, 5, 2));
  EXPECT_FALSE(naive_key_visible(5, 3, 2));
  EXPECT_FALSE(naive_key_visible(5, 6, 0));
  EXPECT_TRUE(naive_key_visible(5, 0, 0));
}

TEST(NaiveWindow, WindowOfTwoAveragesTheLastTwoValues) {
  NaiveConfig c = toy_config();
  c.sliding_window = {2};
  const Logits l = naive_logits(c, toy_weights(), kFourTokens);
  EXPECT_THAT(l[0], ::testing::ElementsAre(2, 2, 2, 2));   // e0 + e0
  EXPECT_THAT(l[3], ::testing::ElementsAre(2, -1, -2, 1)); // e3 + (e2 + e3) / 2
}

TEST(NaiveWindow, FullAttentionAveragesEveryEarlierValue) {
  const Logits l = naive_logits(toy_config(), toy_weights(), kFourTokens);
  EXPECT_THAT(l[3], ::testing::ElementsAre(2, -1, -1, 1)); // e3 + (e0 + e1 + e2 + e3) / 4
}

TEST(NaiveSoftcap, FinalSoftcapSquashesLogits) {
  NaiveConfig c = toy_config();
  c.final_softcap = 3.0;
  const Logits l = naive_logits(c, toy_weights(), std::vector<int32_t>{0});
  EXPECT_NEAR(l[0][0], 3.0 * std::tanh(2.0 / 3.0), 1e-6);  // the uncapped logit is 2
}

// ---- norms, embedding, feed-forward -------------------------------------------------

TEST(NaiveNorm, OnePlusWeightGainTreatsZeroWeightAsOne) {
  NaiveConfig c = toy_config();
  c.norm_gain = NaiveNormGain::one_plus_w;
  InMemoryWeights w = toy_weights();
  w.set("blk.0.attn_norm.weight", filled(1, 4, 0.0f));
  w.set("blk.0.ffn_norm.weight", filled(1, 4, 0.0f));
  const Logits l = naive_logits(c, w, kFourTokens);
  EXPECT_THAT(l[3], ::testing::ElementsAre(2, -1, -1, 1));
}

TEST(NaiveNorm, LayerNormCentersThenAddsBias) {
  // e0 = [3, 1, 3, 1]: mean 2, variance 1, so the norm gives [1, -1, 1, -1] + bias.
  NaiveConfig c = toy_config();
  c.norm = NaiveNorm::layer;
  c.norm_bias = true;
  c.block = NaiveBlock::parallel_shared_norm;
  InMemoryWeights w = toy_weights();
  w.set("token_embd.weight", matrix(4, 4, {3, 1, 3, 1,  1, -1, 1, -1,
                                           1, 1, -1, -1,  1, -1, -1, 1}));
  w.set("blk.0.attn_norm.bias", matrix(1, 4, {0.5f, 0, 0, 0}));
  const Logits l = naive_logits(c, w, std::vector<int32_t>{0});
  EXPECT_THAT(l[0], ::testing::ElementsAre(4.5, 0, 4, 0));  // e0 + attn(norm(e0))
}

TEST(NaiveEmbedding, ScaleMultipliesTheLookupBeforeTheResidual) {
  NaiveConfig c = toy_config();
  c.embed_scale = 2.0;
  const Logits l = naive_logits(c, toy_weights(), std::vector<int32_t>{0});
  EXPECT_THAT(l[0], ::testing::ElementsAre(3, 3, 3, 3));  // 2 e0 + norm(2 e0)
}

TEST(NaiveEmbedding, LearnedPositionsAreAddedPerPosition) {
  // e0 + p1 = [-1, 1, 1, 1] keeps rms 1; logits[1] = x1 + (x0 + x1) / 2.
  NaiveConfig c = toy_config();
  c.position = NaivePosition::learned;
  InMemoryWeights w = toy_weights();
  w.set("position_embd.weight", matrix(2, 4, {0, 0, 0, 0,  -2, 0, 0, 0}));
  const Logits l = naive_logits(c, w, std::vector<int32_t>{0, 0});
  EXPECT_THAT(l[1], ::testing::ElementsAre(-1, 2, 2, 2));
}

TEST(NaiveEmbedding, TiedOutputProjectsWithTheEmbedding) {
  NaiveConfig c = toy_config();
  c.tied_output = true;
  const Logits l = naive_logits(c, toy_weights(), std::vector<int32_t>{0});
  EXPECT_THAT(l[0], ::testing::ElementsAre(8, 0, 0, 0));  // E (2 e0): rows are orthogonal
}

TEST(NaiveNorm, PostNormRescalesTheAttentionOutput) {
  // post_attention_norm (weight 0.5) of attn = e0 is 0.5 e0; the zero ffn stays zero.
  NaiveConfig c = toy_config();
  c.post_norms = true;
  c.norm_eps = 1e-12;
  InMemoryWeights w = toy_weights();
  w.set("blk.0.post_attention_norm.weight", filled(1, 4, 0.5f));
  w.set("blk.0.post_ffw_norm.weight", filled(1, 4, 1.0f));
  const Logits l = naive_logits(c, w, std::vector<int32_t>{0});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(l[0][i], 1.5, 1e-6) << i;
}

TEST(NaiveFeedForward, SquaredReluInParallelBlock) {
  // ffn_up reads 3 * channel 1, ffn_down writes channel 1: e0 gives relu(3)^2 = 9,
  // e1 gives relu(-3)^2 = 0. The parallel block feeds the ffn the same norm(x).
  NaiveConfig c = toy_config();
  c.ffn = NaiveFfn::relu_sqr;
  c.block = NaiveBlock::parallel_shared_norm;
  InMemoryWeights w = toy_weights();
  w.set("blk.0.ffn_up.weight", matrix(1, 4, {0, 3, 0, 0}));
  w.set("blk.0.ffn_down.weight", matrix(4, 1, {0, 1, 0, 0}));
  const Logits l = naive_logits(c, w, std::vector<int32_t>{0, 1});
  EXPECT_THAT(l[0], ::testing::ElementsAre(2, 11, 2, 2));
  EXPECT_THAT(l[1], ::testing::ElementsAre(2, -1, 2, -1));  // e1 + (e0 + e1) / 2
}

TEST(NaiveFeedForward, GeluExactAndTanhOfOne) {
  NaiveConfig c = toy_config();
  c.ffn = NaiveFfn::gelu;
  c.block = NaiveBlock::parallel_shared_norm;
  InMemoryWeights w = toy_weights();
  w.set("blk.0.ffn_up.weight", matrix(1, 4, {0, 1, 0, 0}));
  w.set("blk.0.ffn_down.weight", matrix(4, 1, {0, 1, 0, 0}));
  const std::vector<int32_t> token0 = {0};
  EXPECT_NEAR(naive_logits(c, w, token0)[0][1] - 2.0f, 0.8413447460685429, 1e-6);
  c.gelu = NaiveGelu::tanh;
  EXPECT_NEAR(naive_logits(c, w, token0)[0][1] - 2.0f, 0.8411919906082768, 1e-6);
}

// ---- fused projections and naming schemes -------------------------------------------

// A small model of deterministic pseudo-random weights with q/k/v biases and RoPE.
NaiveConfig random_config() {
  return NaiveConfig{.n_layers = 2, .d_model = 8, .n_heads = 2, .head_dim = 4, .d_ff = 6,
                     .n_vocab = 10, .qkv_bias = true};
}

NaiveMatrix random_matrix(int64_t rows, int64_t cols, uint32_t& state) {
  NaiveMatrix m = filled(rows, cols, 0.0f);
  for (float& v : m.values) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / float(1 << 24) - 0.5f;
  }
  return m;
}

InMemoryWeights random_weights(const NaiveConfig& c) {
  uint32_t state = 7;
  InMemoryWeights w;
  w.set("token_embd.weight", random_matrix(c.n_vocab, c.d_model, state));
  w.set("output_norm.weight", random_matrix(1, c.d_model, state));
  w.set("output.weight", random_matrix(c.n_vocab, c.d_model, state));
  for (int layer = 0; layer < c.n_layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    for (const char* norm : {"attn_norm", "ffn_norm"})
      w.set(blk + norm + ".weight", random_matrix(1, c.d_model, state));
    for (const char* proj : {"attn_q", "attn_k", "attn_v"}) {
      w.set(blk + proj + ".weight", random_matrix(8, c.d_model, state));
      w.set(blk + proj + ".bias", random_matrix(1, 8, state));
    }
    w.set(blk + "attn_output.weight", random_matrix(c.d_model, 8, state));
    for (const char* proj : {"ffn_gate", "ffn_up"})
      w.set(blk + proj + ".weight", random_matrix(c.d_ff, c.d_model, state));
    w.set(blk + "ffn_down.weight", random_matrix(c.d_model, c.d_ff, state));
  }
  return w;
}

// Stacks row blocks of [rows_per_block, cols] from `parts` in the order of `blocks`
// (indexes into parts) into one matrix.
NaiveMatrix stack_rows(const std::vector<NaiveMatrix>& parts,
                       const std::vector<std::pair<int, int64_t>>& blocks, int64_t block_rows) {
  NaiveMatrix out{.rows = 0, .cols = parts[0].cols, .values = {}};
  for (const auto& [part, first_block] : blocks) {
    const auto begin = parts[part].values.begin() + first_block * block_rows * out.cols;
    out.values.insert(out.values.end(), begin, begin + block_rows * out.cols);
    out.rows += block_rows;
  }
  return out;
}

// The same weights with each layer's q, k, v (and biases) fused into attn_qkv.
InMemoryWeights fuse_qkv(const NaiveConfig& c, InMemoryWeights w, bool per_head) {
  std::vector<std::pair<int, int64_t>> order;  // (q=0 / k=1 / v=2, head) row blocks
  for (int64_t head = 0; head < c.n_heads; ++head)
    for (int part = 0; part < 3; ++part) order.emplace_back(part, head);
  if (!per_head) std::sort(order.begin(), order.end());  // all q rows, then k, then v
  for (int layer = 0; layer < c.n_layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    for (const char* suffix : {".weight", ".bias"}) {
      std::vector<NaiveMatrix> parts;
      for (const char* proj : {"attn_q", "attn_k", "attn_v"}) {
        NaiveMatrix m = *w.find(blk + proj + suffix);
        if (m.rows == 1) m = matrix(m.cols, 1, m.values);  // a bias: one value per row
        parts.push_back(m);
      }
      NaiveMatrix fused = stack_rows(parts, order, c.head_dim);
      if (std::string(suffix) == ".bias") fused = matrix(1, fused.rows, fused.values);
      w.set(blk + "attn_qkv" + suffix, fused);
    }
  }
  return w;
}

double max_difference(const Logits& a, const Logits& b) {
  double most = 0.0;
  for (size_t t = 0; t < a.size(); ++t)
    for (size_t v = 0; v < a[t].size(); ++v)
      most = std::max(most, double(std::abs(a[t][v] - b[t][v])));
  return most;
}

void expect_same_logits(const Logits& a, const Logits& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t t = 0; t < a.size(); ++t)
    for (size_t v = 0; v < a[t].size(); ++v) EXPECT_NEAR(a[t][v], b[t][v], 1e-6) << t << "," << v;
}

const std::vector<int32_t> kRandomTokens = {3, 1, 4, 1, 5, 9, 2, 6};

TEST(NaiveQkv, FusedContiguousRowsMatchSeparateProjections) {
  NaiveConfig c = random_config();
  const InMemoryWeights separate = random_weights(c);
  const Logits expected = naive_logits(c, separate, kRandomTokens);
  c.qkv = NaiveQkv::fused;
  expect_same_logits(naive_logits(c, fuse_qkv(c, separate, false), kRandomTokens), expected);
}

TEST(NaiveQkv, FusedPerHeadRowsMatchSeparateProjections) {
  NaiveConfig c = random_config();
  const InMemoryWeights separate = random_weights(c);
  const Logits expected = naive_logits(c, separate, kRandomTokens);
  c.qkv = NaiveQkv::fused_per_head;
  const InMemoryWeights fused = fuse_qkv(c, separate, true);
  expect_same_logits(naive_logits(c, fused, kRandomTokens), expected);
  c.qkv = NaiveQkv::fused;  // the same rows read as contiguous blocks are a different model
  EXPECT_GT(max_difference(naive_logits(c, fused, kRandomTokens), expected), 1e-3);
}

// GGUF names to a Hugging Face-like scheme ("blk.1.attn_q.weight" ->
// "model.layers.1.self_attn.q_proj.weight"); "" for a tensor the scheme lacks.
std::string hf_name(const std::string& gguf) {
  static const std::map<std::string, std::string> kParts = {
      {"attn_norm", "input_layernorm"}, {"ffn_norm", "post_attention_layernorm"},
      {"attn_q", "self_attn.q_proj"},   {"attn_k", "self_attn.k_proj"},
      {"attn_v", "self_attn.v_proj"},   {"attn_output", "self_attn.o_proj"},
      {"ffn_gate", "mlp.gate_proj"},    {"ffn_up", "mlp.up_proj"},
      {"ffn_down", "mlp.down_proj"}};
  if (gguf == "token_embd.weight") return "model.embed_tokens.weight";
  if (gguf == "output_norm.weight") return "model.norm.weight";
  if (gguf == "output.weight") return "lm_head.weight";
  const size_t layer_end = gguf.find('.', 4);
  const size_t part_end = gguf.rfind('.');
  if (gguf.rfind("blk.", 0) != 0 || layer_end == std::string::npos) return "";
  const auto part = kParts.find(gguf.substr(layer_end + 1, part_end - layer_end - 1));
  if (part == kParts.end()) return "";
  return "model.layers." + gguf.substr(4, layer_end - 4) + "." + part->second +
         gguf.substr(part_end);
}

TEST(NaiveWeightsNames, RenamedWeightsReadAnotherScheme) {
  const NaiveConfig c = random_config();
  const InMemoryWeights gguf = random_weights(c);
  InMemoryWeights hf;
  for (const char* name : {"token_embd.weight", "output_norm.weight", "output.weight"})
    hf.set(hf_name(name), *gguf.find(name));
  for (int layer = 0; layer < c.n_layers; ++layer)
    for (const char* part : {"attn_norm.weight", "ffn_norm.weight", "attn_q.weight",
                             "attn_q.bias", "attn_k.weight", "attn_k.bias", "attn_v.weight",
                             "attn_v.bias", "attn_output.weight", "ffn_gate.weight",
                             "ffn_up.weight", "ffn_down.weight"}) {
      const std::string name = "blk." + std::to_string(layer) + "." + part;
      hf.set(hf_name(name), *gguf.find(name));
    }
  EXPECT_EQ(hf_name("blk.1.attn_q.bias"), "model.layers.1.self_attn.q_proj.bias");
  expect_same_logits(naive_logits(c, RenamedWeights(hf, hf_name), kRandomTokens),
                     naive_logits(c, gguf, kRandomTokens));
}

// ---- reading a WeightFile -----------------------------------------------------------

// A WeightFile over bytes held in memory, to hand WeightFileWeights every dtype.
class BytesWeightFile final : public WeightFile {
 public:
  void add(const std::string& name, DType dtype, std::vector<int64_t> shape,
           std::vector<uint8_t> bytes) {
    const std::vector<uint8_t>& kept = bytes_.emplace_back(std::move(bytes));
    tensors_.push_back(TensorView{.name = name, .dtype = dtype, .shape = std::move(shape),
                                  .data = kept.data(), .n_bytes = kept.size()});
  }
  const std::string& path() const override { return path_; }
  std::string format() const override { return "bytes"; }
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  const std::vector<TensorView>& tensors() const override { return tensors_; }

 private:
  std::string path_ = "in-memory";
  std::map<std::string, MetaValue> metadata_;
  std::deque<std::vector<uint8_t>> bytes_;  // a deque keeps each vector's data in place
  std::vector<TensorView> tensors_;
};

// Little-endian bytes of 16-bit values.
std::vector<uint8_t> le16(const std::vector<uint16_t>& values) {
  std::vector<uint8_t> out;
  for (uint16_t v : values) {
    out.push_back(uint8_t(v & 0xff));
    out.push_back(uint8_t(v >> 8));
  }
  return out;
}

TEST(NaiveWeightFile, F32MatrixKeepsRowsOuterFirst) {
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> bytes(sizeof(float) * values.size());
  std::memcpy(bytes.data(), values.data(), bytes.size());
  BytesWeightFile file;
  file.add("m", DType::F32, {2, 3}, bytes);
  const std::optional<NaiveMatrix> m = WeightFileWeights(file).find("m");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->rows, 2);
  EXPECT_EQ(m->cols, 3);
  EXPECT_EQ(m->at(1, 0), 4.0f);
}

TEST(NaiveWeightFile, F16AndBf16BitsBecomeFloats) {
  BytesWeightFile file;
  file.add("half", DType::F16, {3}, le16({0x3E00, 0xC000, 0x3555}));  // 1.5, -2, ~1/3
  file.add("brain", DType::BF16, {2}, le16({0x3FC0, 0xC000}));        // 1.5, -2
  const WeightFileWeights weights(file);
  EXPECT_THAT(weights.find("half")->values,
              ::testing::ElementsAre(1.5f, -2.0f, 0.333251953125f));
  EXPECT_THAT(weights.find("brain")->values, ::testing::ElementsAre(1.5f, -2.0f));
  EXPECT_EQ(weights.find("half")->rows, 1);
}

TEST(NaiveWeightFile, Q8_0BlocksAreScaleTimesInt8) {
  // Two rows of one block each: scale 0.5 (f16 0x3800), then 2 (0x4000); q = i - 16.
  std::vector<uint8_t> bytes;
  for (uint16_t scale : {0x3800, 0x4000}) {
    bytes.push_back(uint8_t(scale & 0xff));
    bytes.push_back(uint8_t(scale >> 8));
    for (int i = 0; i < 32; ++i) bytes.push_back(uint8_t(int8_t(i - 16)));
  }
  BytesWeightFile file;
  file.add("q", DType::Q8_0, {2, 32}, bytes);
  const NaiveMatrix m = *WeightFileWeights(file).find("q");
  ASSERT_EQ(m.rows, 2);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(m.at(0, i), 0.5f * float(i - 16)) << i;
    EXPECT_EQ(m.at(1, i), 2.0f * float(i - 16)) << i;
  }
}

TEST(NaiveWeightFile, AbsentTensorIsNullopt) {
  BytesWeightFile file;
  EXPECT_FALSE(WeightFileWeights(file).find("token_embd.weight").has_value());
}

TEST(NaiveWeightFile, IntegerTensorIsRefused) {
  BytesWeightFile file;
  file.add("ids", DType::I32, {1}, {0, 0, 0, 0});
  try {
    WeightFileWeights(file).find("ids");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "naive transformer: weight 'ids' has dtype i32");
  }
}

// ---- errors -------------------------------------------------------------------------

std::string error_of(const NaiveConfig& c, const NaiveWeights& w,
                     const std::vector<int32_t>& tokens) {
  try {
    naive_logits(c, w, tokens);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(NaiveErrors, MissingWeightIsNamed) {
  NaiveConfig c = toy_config();
  c.final_norm = true;
  EXPECT_EQ(error_of(c, toy_weights(), kFourTokens),
            "naive transformer: missing weight 'output_norm.weight'");
}

TEST(NaiveErrors, WrongShapeIsNamedWithBothShapes) {
  InMemoryWeights w = toy_weights();
  w.set("blk.0.attn_v.weight", filled(3, 4, 0.0f));
  EXPECT_EQ(error_of(toy_config(), w, kFourTokens),
            "naive transformer: weight 'blk.0.attn_v.weight' is [3, 4], expected [4, 4]");
}

TEST(NaiveErrors, HeadsNotAMultipleOfKvHeadsAreRejected) {
  NaiveConfig c = toy_config();
  c.n_heads = 6;
  c.n_kv_heads = 4;
  EXPECT_EQ(error_of(c, toy_weights(), kFourTokens),
            "naive transformer: n_heads (6) is not a multiple of n_kv_heads (4)");
}

TEST(NaiveErrors, TokenOutsideVocabularyIsNamed) {
  EXPECT_EQ(error_of(toy_config(), toy_weights(), {0, 4}),
            "naive transformer: token 4 at position 1 is outside the vocabulary (4)");
}

}  // namespace
}  // namespace tessera::test
