// What of the weights file a compiled definition leaves unread: the tensors no weight
// of the graph reads, and the architectural metadata no meta() names (with the values
// at which ignoring a key changes nothing); and the messages the tools print for them.
#include <gtest/gtest.h>

#include "dsl/file_coverage.h"
#include "fake_weight_file.h"
#include "graph_query.h"
#include "llama_fixture.h"

namespace tessera::test {
namespace {

// A one-layer attention model of arch "llama" that reads no metadata but the head count
// (and, when `window` is its text, a window): the keys of the file are its own to set.
std::string tiny_model(const std::string& window_hparam = "", const std::string& window_attr = "0") {
  return R"(model tiny
hparams {
  heads = meta("{arch}.attention.head_count", 2)
  )" + window_hparam + R"(
}
weights {
  emb [16, 8]  = "token_embd.weight"
  out [16, 8]  = "output.weight" else emb
  wq [8, 8]    = "blk.0.attn_q.weight"
  b [8]        = "blk.0.attn_q.bias" else none
}
forward {
  q = linear(embed(emb), wq, b)
  x = attention(q, q, q, heads: heads, window: )" + window_attr + R"()
  logits = linear(outputs(x), out)
}
)";
}

FakeWeightFile tiny_file() {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "llama");
  f.set_uint("llama.attention.head_count", 2);
  f.set_uint("llama.embedding_length", 8);
  f.add_tensor("token_embd.weight", {16, 8});
  f.add_tensor("blk.0.attn_q.weight", {8, 8});
  return f;
}

std::vector<std::string> unread_keys(const CompiledModel& m) {
  std::vector<std::string> out;
  for (const FileCoverage::Key& k : m.coverage.unread_keys) out.push_back(k.name + " = " + k.value);
  return out;
}

using Names = std::vector<std::string>;

TEST(FileCoverage, Stories260KIsReadWhole) {
  const FakeWeightFile f = stories260k_fake();
  const CompiledModel m = compile_llama(f);
  EXPECT_TRUE(m.coverage.checked);
  EXPECT_EQ(m.coverage.file_tensors, 48);
  EXPECT_EQ(m.coverage.used_tensors, 48);
  EXPECT_EQ(m.coverage.unused_tensors, Names{});
  EXPECT_EQ(unread_keys(m), Names{});
}

TEST(FileCoverage, WithoutAFileNothingIsChecked) {
  EXPECT_FALSE(compile_tinyllama().coverage.checked);
}

TEST(FileCoverage, TensorsNoWeightReadsAreUnusedInFileOrder) {
  FakeWeightFile f = stories260k_fake();
  f.add_tensor("rope_freqs.weight", {4});  // llama.tsr reads it: an optional weight
  f.add_tensor("blk.1.attn_q.bias", {64});
  f.add_tensor("blk.0.attn_q.bias", {64});
  const CompiledModel m = compile_llama(f);
  EXPECT_EQ(m.coverage.file_tensors, 51);
  EXPECT_EQ(m.coverage.used_tensors, 49);
  EXPECT_EQ(m.coverage.unused_tensors, (Names{"blk.1.attn_q.bias", "blk.0.attn_q.bias"}));
}

TEST(FileCoverage, AnAbsentOptionalWeightAndATiedOutputLeaveNothingUnread) {
  const FakeWeightFile f = tiny_file();  // no output.weight, no bias
  const CompiledModel m = compile_text(tiny_model(), &f);
  EXPECT_EQ(m.coverage.used_tensors, 2);
  EXPECT_EQ(m.coverage.unused_tensors, Names{});
}

TEST(FileCoverage, AWeightDeclaredForLayersNoLoopReachesIsUnused) {
  FakeWeightFile f("two.gguf");
  f.add_tensor("emb", {16, 8});
  f.add_tensor("blk.0.w", {8, 8});
  f.add_tensor("blk.1.w", {8, 8});
  const CompiledModel m = compile_text(R"(model two
hparams { n = 2 }
weights {
  emb [16, 8] = "emb"
  layer i in 0 .. n { w [8, 8] = "blk.{i}.w" }
}
forward {
  x = embed(emb)
  for i in 0 .. 1 { x = linear(x, w[i]) }
  logits = linear(outputs(x), emb)
}
)", &f);
  EXPECT_EQ(m.coverage.unused_tensors, Names{"blk.1.w"});
}

TEST(FileCoverage, AHuggingFaceFoldersNonParameterBuffersAreSkipped) {
  FakeWeightFile f("folder", "hf");
  f.set_string("model_type", "tiny");
  f.add_tensor("emb", {16, 8});
  f.add_tensor("model.layers.0.self_attn.rotary_emb.inv_freq", {4});
  f.add_tensor("transformer.h.0.attn.bias", {1, 1, 8, 8});
  f.add_tensor("transformer.h.0.attn.masked_bias", {1});
  f.add_tensor("lm_head.weight", {16, 8});
  const CompiledModel m = compile_text(R"(model tiny
weights { emb [16, 8] = "emb", hf: "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)", &f);
  EXPECT_EQ(m.coverage.used_tensors, 1);
  EXPECT_EQ(m.coverage.ignored_buffers, (Names{"model.layers.0.self_attn.rotary_emb.inv_freq",
                                                "transformer.h.0.attn.bias", "transformer.h.0.attn.masked_bias"}));
  EXPECT_EQ(m.coverage.unused_tensors, Names{"lm_head.weight"});
}

TEST(FileCoverage, AnUnreadSlidingWindowIsReported) {
  FakeWeightFile f = tiny_file();
  f.set_uint("llama.attention.sliding_window", 4096);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)), Names{"llama.attention.sliding_window = 4096"});
}

TEST(FileCoverage, AWindowOfZeroIsNotReported) {
  FakeWeightFile f = tiny_file();
  f.set_uint("llama.attention.sliding_window", 0);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)), Names{});
}

TEST(FileCoverage, AKeyAMetaNamesIsRead) {
  FakeWeightFile f = tiny_file();
  f.set_uint("llama.attention.sliding_window", 4096);
  const std::string hparam = "window = meta(\"{arch}.attention.sliding_window\", 0)";
  EXPECT_EQ(unread_keys(compile_text(tiny_model(hparam, "window"), &f)), Names{});
}

// The definition knows the key: an override or an if() decides its value instead.
TEST(FileCoverage, AKeyOfAnOverriddenOrUntakenMetaIsRead) {
  FakeWeightFile f = tiny_file();
  f.set_uint("llama.attention.sliding_window", 4096);
  const std::string hparam = "window = meta(\"{arch}.attention.sliding_window\", 0)";
  EXPECT_EQ(unread_keys(compile_text(tiny_model(hparam, "window"), &f, {{"window", "0"}})), Names{});
  const std::string untaken = "window = if(0, meta(\"other|{arch}.attention.sliding_window\", 0), 0)";
  EXPECT_EQ(unread_keys(compile_text(tiny_model(untaken, "window"), &f)), Names{});
}

TEST(FileCoverage, AnUnreadSoftcapScaleAndExpertsAreReportedSortedByKey) {
  FakeWeightFile f = tiny_file();
  f.set_float("llama.final_logit_softcapping", 30.0);
  f.set_float("llama.logit_scale", 0.0625);
  f.set_uint("llama.expert_count", 8);
  f.set_float("llama.attn_logit_softcapping", 0.0);  // off
  f.set_float("llama.residual_scale", 1.0);          // no scale
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)),
            (Names{"llama.expert_count = 8", "llama.final_logit_softcapping = 30", "llama.logit_scale = 0.0625"}));
}

TEST(FileCoverage, HeadSizesAreReportedOnlyWhenTheyDifferFromTheDerivedOne) {
  FakeWeightFile f = tiny_file();  // embedding_length 8 / head_count 2: heads of 4
  f.set_uint("llama.attention.key_length", 4);
  f.set_uint("llama.attention.value_length", 4);
  f.set_uint("llama.rope.dimension_count", 4);
  f.set_uint("llama.attention.head_count_kv", 2);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)), Names{});
  f.set_uint("llama.attention.value_length", 8);
  f.set_uint("llama.rope.dimension_count", 2);
  f.set_uint("llama.attention.head_count_kv", 1);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)),
            (Names{"llama.attention.head_count_kv = 1", "llama.attention.value_length = 8",
                   "llama.rope.dimension_count = 2"}));
}

TEST(FileCoverage, RopeScalingKeysMatterOnlyWithAScalingFactor) {
  FakeWeightFile f = tiny_file();
  f.set_uint("llama.rope.scaling.original_context_length", 8192);
  f.set_float("llama.rope.scaling.factor", 1.0);
  f.set_string("llama.rope.scaling.type", "yarn");  // a string: meta() cannot read it
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)), Names{});
  f.set_float("llama.rope.scaling.factor", 4.0);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)),
            (Names{"llama.rope.scaling.factor = 4", "llama.rope.scaling.original_context_length = 8192"}));
}

TEST(FileCoverage, KeysOfAnotherArchitectureAndOtherKeysAreNotLookedAt) {
  FakeWeightFile f = tiny_file();
  f.set_uint("qwen2.attention.sliding_window", 4096);
  f.set_uint("llama.context_length", 4096);
  f.set_uint("llama.block_count", 1);
  EXPECT_EQ(unread_keys(compile_text(tiny_model(), &f)), Names{});
}

TEST(FileCoverage, AHuggingFaceFoldersConfigIsNotLookedAt) {
  FakeWeightFile f("folder", "hf");
  f.set_string("model_type", "tiny");
  f.set_int("tiny.attention.sliding_window", 4096);
  f.add_tensor("emb", {16, 8});
  const CompiledModel m = compile_text(R"(model tiny
weights { emb [16, 8] = "emb", hf: "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)", &f);
  EXPECT_EQ(unread_keys(m), Names{});
}

TEST(FileCoverage, ProblemsNameBothFilesAndCapTheList) {
  FakeWeightFile f = stories260k_fake();
  for (int i = 0; i < 10; ++i) f.add_tensor("extra." + std::to_string(i), {4});
  f.set_float("llama.attn_logit_softcapping", 50.0);
  const CompiledModel m = compile_llama(f);
  EXPECT_EQ(dsl::coverage_problems(m, "m.gguf"),
            (Names{"10 tensor(s) of m.gguf are not used by " + source_path("models/llama.tsr") +
                       ": extra.0, extra.1, extra.2, extra.3, extra.4, extra.5, extra.6, extra.7, ... and 2 more",
                   "1 metadata key(s) of m.gguf that change the computation are not read by " +
                       source_path("models/llama.tsr") + ": llama.attn_logit_softcapping = 50"}));
}

TEST(FileCoverage, NoProblemsWhenTheFileIsReadWhole) {
  const FakeWeightFile f = stories260k_fake();
  EXPECT_EQ(dsl::coverage_problems(compile_llama(f), "m.gguf"), Names{});
}

}  // namespace
}  // namespace tessera::test
