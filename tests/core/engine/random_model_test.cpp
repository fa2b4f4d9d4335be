// The Engine on random-weight models written with the GGUF writer (the `tessera
// init` logic): batches with chunked prefill and preemption agree with each prompt
// run alone, and a sliding-window variant gives back the blocks behind its window.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dsl/parse.h"
#include "engine_harness.h"
#include "support/temp_path.h"
#include "tools/tessera/random_model.h"

namespace tessera::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}


// Writes a small random LLaMA of the definition in `arch_path` and loads it.
std::unique_ptr<LoadedModel> random_llama(const std::string& arch_path, const std::string& name) {
  dsl::CompileOptions options;
  options.overrides = {{"d_model", "64"}, {"n_layers", "2"}, {"n_heads", "4"},
                       {"n_kv_heads", "2"}, {"d_ff", "96"}, {"n_vocab", "300"}};
  options.weight_dtype = DType::F32;
  const CompiledModel compiled = dsl::compile_model(*dsl::parse_model_file(arch_path), options);
  GgufWriter writer;
  cli::add_random_model(compiled, DType::F32, 7, writer);
  cli::add_byte_vocab(compiled.n_vocab, writer);
  const std::string path = temp_path(name);
  writer.write(path);
  return std::make_unique<LoadedModel>(path, arch_path);
}

// The LLaMA definition with every attention limited to the last `window` positions.
std::string windowed_llama(int window) {
  std::string text = read_text(source_path("models/llama.tsr"));
  const std::string call = "window: window)";
  const size_t at = text.find(call);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, call.size(), "window: " + std::to_string(window) + ")");
  const std::string path = temp_path("llama_window.tsr");
  std::ofstream(path) << text;
  return path;
}

const std::vector<Prompt>& byte_prompts() {
  static const std::vector<Prompt> prompts = {
      {"hello world", 30},
      {"a", 24},
      {"the quick brown fox jumps over the lazy dog", 30},
      {"abc def ghi", 40},
      {"0123456789", 16},
  };
  return prompts;
}

void expect_batch_matches_alone(const LoadedModel& m, Engine& engine) {
  std::vector<Request> requests;
  for (const Prompt& p : byte_prompts()) requests.push_back(request_of(p, greedy(), true));
  const auto results = run_batch(engine, requests);
  ASSERT_EQ(results.size(), byte_prompts().size());
  for (const auto& [id, r] : results) {
    const Prompt& p = byte_prompts()[static_cast<size_t>(id)];
    const GenerateResult alone = run_alone(m, p, greedy(), true);
    EXPECT_EQ(r.generated_ids, alone.generated_ids) << p.text;
    EXPECT_EQ(r.generated_ids.size(), static_cast<size_t>(p.max_tokens)) << p.text;
  }
}

TEST(RandomModel, BatchWithChunkedPrefillAndPreemptionGivesWhatEachPromptGivesAlone) {
  const auto m = random_llama(source_path("models/llama.tsr"), "random_llama.gguf");
  EngineOptions o;
  o.kv_block = 4;
  o.kv_budget = KvBudget::tokens(112);  // 28 blocks: about two of the five sequences at full length
  o.max_batch = 5;
  o.max_tokens_per_step = 12;
  Engine engine(*m->model, m->backend, o);
  expect_batch_matches_alone(*m, engine);
  const EngineStats s = engine.stats();
  EXPECT_GT(s.preemptions, 0);
  EXPECT_LT(s.mean_waste_fraction, 0.5);
  expect_all_blocks_free(engine);
}

TEST(RandomModel, SlidingWindowReleasesBlocksBehindItAndKeepsOutputs) {
  const auto m = random_llama(windowed_llama(6), "random_llama_window.gguf");
  EngineOptions o;
  o.kv_block = 4;
  o.kv_budget = KvBudget::tokens(64);  // less than the five sequences' 250 tokens without release
  o.max_batch = 5;
  o.max_tokens_per_step = 8;
  Engine engine(*m->model, m->backend, o);
  EXPECT_EQ(engine.kv_cache().config().window, 6);
  expect_batch_matches_alone(*m, engine);
  const EngineStats s = engine.stats();
  EXPECT_GT(s.kv.blocks_released_by_window, 30);
  expect_all_blocks_free(engine);
}

}  // namespace
}  // namespace tessera::test
