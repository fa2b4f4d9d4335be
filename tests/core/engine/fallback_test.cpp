// Per-op fallback on stories260K, between two CPU devices (the Vulkan tests do it with
// lavapipe): a backend that lacks kernels runs those nodes on its fallback, KV_WRITE
// and ATTENTION beside their cache, with logits bit-for-bit those of one device
// (same kernels on both), through prefill, decode, the engine and a migration; the
// placement states what moved; a node no backend runs is refused naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/exec/node_placement.h"
#include "core/util/error.h"
#include "engine_harness.h"
#include "support/golden.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

const LoadedModel& stories() {
  static const LoadedModel m(testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr"));
  return m;
}

// A CPU backend of its own lacking `hidden` kernels, falling back to another CPU device.
struct LackingCpu {
  PluginHost host{std::vector<std::string>{plugin_dir()}};
  Backend backend = open_backend(host, "cpu", 2);

  explicit LackingCpu(std::vector<std::pair<OpKind, DType>> hidden, bool with_fallback = true) {
    for (auto [op, dtype] : hidden) backend.registry->hide(op, dtype);
    if (with_fallback) backend.fallback = std::make_shared<Backend>(open_backend(host, "cpu", 2));
  }
};

std::vector<float> prefill_then_decode(const Backend& backend, std::vector<float>* decode_logits,
                                       size_t* devices) {
  const LoadedModel& m = stories();
  Session s(*m.model, backend, SessionOptions{.kv_block = 4, .n_ctx = 0, .max_step_tokens = 5});
  *devices = s.executor().placement().devices.size();
  const std::vector<int32_t> seq = golden_logit_tokens();
  const size_t half = seq.size() / 2;
  std::vector<float> prefill = s.feed(std::span<const int32_t>(seq).first(half), static_cast<int32_t>(half));
  decode_logits->clear();
  for (size_t p = half; p < seq.size(); ++p) {
    const auto& l = s.feed(std::span<const int32_t>(&seq[p], 1));
    decode_logits->insert(decode_logits->end(), l.begin(), l.end());
  }
  return prefill;
}

TEST(Fallback, NodesTheBackendLacksRunOnTheFallbackWithTheSameLogits) {
  std::vector<float> want_decode, got_decode;
  size_t devices = 0;
  const std::vector<float> want = prefill_then_decode(stories().backend, &want_decode, &devices);
  EXPECT_EQ(devices, 1u);
  LackingCpu lacking({{OpKind::RmsNorm, DType::F32}, {OpKind::SwiGlu, DType::F32}});
  const std::vector<float> got = prefill_then_decode(lacking.backend, &got_decode, &devices);
  EXPECT_EQ(devices, 2u);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got_decode, want_decode);
}

TEST(Fallback, PlacementNamesTheMovedOpsAndTheBytesCopied) {
  const LoadedModel& m = stories();
  LackingCpu lacking({{OpKind::SwiGlu, DType::F32}});
  const auto executor = place_graph(m.model->compiled().graph, m.model->weights(), lacking.backend, KvCacheShape{16, 4});
  const PlacementSummary p = executor->placement();
  ASSERT_EQ(p.devices.size(), 2u);
  const int64_t n_layers = m.model->compiled().n_layers;
  EXPECT_EQ(p.nodes[1], n_layers);  // one swiglu a layer
  EXPECT_EQ(p.nodes[0] + p.nodes[1], static_cast<int64_t>(m.model->compiled().graph.nodes().size()));
  ASSERT_EQ(p.ops[1].size(), 1u);
  EXPECT_EQ(p.ops[1][0].op, "swiglu");
  EXPECT_FALSE(p.ops[1][0].follows_cache);
  EXPECT_EQ(p.segments, 2 * n_layers + 1);  // out to the fallback and back, every layer
  // Per layer and token: the gate and up projections go out, the product comes back
  // (f32: 4 bytes each).
  const int64_t d_ff = 172;  // stories260K's llama.feed_forward_length
  EXPECT_EQ(p.bytes_moved_per_token, static_cast<uint64_t>(n_layers * 3 * d_ff * 4));
}

TEST(Fallback, KvWriteFollowsAnAttentionThatFallsBack) {
  const LoadedModel& m = stories();
  LackingCpu lacking({{OpKind::Attention, DType::F32}});
  const auto executor = place_graph(m.model->compiled().graph, m.model->weights(), lacking.backend, KvCacheShape{16, 4});
  const PlacementSummary p = executor->placement();
  ASSERT_EQ(p.ops.size(), 2u);
  const int64_t n_layers = m.model->compiled().n_layers;
  int64_t attention = 0, kv_writes = 0;
  for (const auto& op : p.ops[1]) {
    if (op.op == "attention") attention += op.nodes;
    if (op.op == "kv_write") {
      EXPECT_TRUE(op.follows_cache);
      kv_writes += op.nodes;
    }
  }
  EXPECT_EQ(attention, n_layers);
  EXPECT_EQ(kv_writes, 2 * n_layers);
  for (const auto& op : p.ops[0]) EXPECT_NE(op.op, "kv_write");
}

TEST(Fallback, AnUnusedFallbackHoldsNothing) {
  const LoadedModel& m = stories();
  LackingCpu complete({});
  const auto executor = place_graph(m.model->compiled().graph, m.model->weights(), complete.backend, KvCacheShape{16, 4});
  EXPECT_EQ(executor->placement().devices.size(), 1u);
  EXPECT_EQ(executor->placement().segments, 1);
}

TEST(Fallback, WithoutAFallbackTheBackendRefusesTheNode) {
  const LoadedModel& m = stories();
  LackingCpu lacking({{OpKind::Rope, DType::F32}}, /*with_fallback=*/false);
  EXPECT_THAT([&] { place_graph(m.model->compiled().graph, m.model->weights(), lacking.backend, KvCacheShape{16, 4}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("backend 'cpu' has no kernel for rope with f32 data, needed by node")));
}

TEST(Fallback, ANodeNeitherBackendRunsIsRefusedNamingBoth) {
  const LoadedModel& m = stories();
  LackingCpu lacking({{OpKind::Rope, DType::F32}});
  lacking.backend.fallback->registry->hide(OpKind::Rope, DType::F32);
  EXPECT_THAT([&] { place_graph(m.model->compiled().graph, m.model->weights(), lacking.backend, KvCacheShape{16, 4}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no backend (of 'cpu', 'cpu') has a kernel for rope with f32")));
}

TEST(Fallback, TheEngineBatchesAndMigratesWithAFallback) {
  const LoadedModel& m = stories();
  EngineOptions o;
  o.kv_block = 8;
  o.max_tokens_per_step = 16;
  std::vector<Request> requests;
  for (const char* p : {"Once upon a time", "The cat sat on the mat and looked", "Tom"}) {
    requests.push_back(request_of({p, 24}, greedy(), true));
  }
  Engine plain(*m.model, m.backend, o);
  const auto want = run_batch(plain, requests);

  LackingCpu lacking({{OpKind::MatMul, DType::F32}, {OpKind::Attention, DType::F32}});
  Engine engine(*m.model, lacking.backend, o);
  EXPECT_EQ(engine.executor().placement().devices.size(), 2u);
  auto move = [&] {
    if (engine.stats().steps == 6) engine.migrate(m.backend);          // to a complete backend
    if (engine.stats().steps == 12) engine.migrate(lacking.backend);  // and back to the lacking one
  };
  const auto got = run_batch(engine, requests, move);
  ASSERT_EQ(got.size(), want.size());
  for (auto g = got.begin(), w = want.begin(); g != got.end(); ++g, ++w) {
    EXPECT_EQ(g->second.generated_ids, w->second.generated_ids);
  }
  EXPECT_EQ(engine.stats().migrations, 2);
  EXPECT_EQ(engine.executor().placement().devices.size(), 2u);
}

}  // namespace
}  // namespace tessera::test
