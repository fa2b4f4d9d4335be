// A step that fails fails only the requests it can be traced to: with the faulty_rows
// kernel plugin (tests/plugins/faulty_rows), a request whose prompt holds a poison token
// ends with FinishReason::Error and its blocks freed while the others finish with the
// tokens they give without the fault; a fault that does not repeat (one failing call)
// costs nothing but a retry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine_harness.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

constexpr int32_t kPoison = 400;  // a token of stories260K's 512 that the prompts below avoid

// stories260K on the CPU backend with the faulty_rows plugin extending it.
struct FaultyStories {
  PluginHost host{std::vector<std::string>{plugin_dir(), TESSERA_FAULTY_PLUGIN_DIR}};
  Backend backend = open_backend(host, "cpu", 2);
  std::unique_ptr<Model> model;
  FaultyStories() {
    dsl::ModelSpec spec;
    spec.weights_path = testdata_path("stories260K/stories260K.gguf");
    spec.arch_path = source_path("models/llama.tsr");
    model = dsl::load_model(spec);
  }
};

// Sets an environment variable for the scope of a test.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~EnvVar() { unsetenv(name_); }

 private:
  const char* name_;
};

Request ids_request(std::vector<int32_t> ids) {
  Request r;
  r.prompt_ids = std::move(ids);
  r.max_tokens = 16;
  r.sampling = greedy();
  r.stop.ignore_eos = true;
  return r;
}

std::vector<Request> three_requests(bool poisoned_middle) {
  std::vector<Request> r;
  r.push_back(ids_request({1, 403, 261, 280, 304}));
  r.push_back(ids_request({1, 300, poisoned_middle ? kPoison : 310, 320}));
  r.push_back(ids_request({1, 305, 270, 290, 263, 322}));
  return r;
}

EngineOptions batch_options() {
  EngineOptions o;
  o.kv_budget = KvBudget::tokens(256);
  return o;
}

TEST(FailingStep, PoisonedRequestFailsAloneAndTheOthersKeepTheirTokens) {
  const FaultyStories m;
  std::map<RequestId, RequestResult> clean;
  {
    Engine engine(*m.model, m.backend, batch_options());
    clean = run_batch(engine, three_requests(false));
  }
  const EnvVar poison("FAULTY_ROWS_POISON", std::to_string(kPoison));
  Engine engine(*m.model, m.backend, batch_options());
  const auto results = run_batch(engine, three_requests(true));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results.at(0).generated_ids, clean.at(0).generated_ids);
  EXPECT_EQ(results.at(0).finish, FinishReason::Length);
  EXPECT_EQ(results.at(2).generated_ids, clean.at(2).generated_ids);
  EXPECT_EQ(results.at(1).finish, FinishReason::Error);
  EXPECT_TRUE(results.at(1).generated_ids.empty());
  EXPECT_THAT(results.at(1).error, HasSubstr("faulty_rows: token 400 is poison"));
  EXPECT_THAT(results.at(1).error, HasSubstr("(get_rows, "));  // the node it failed at
  EXPECT_EQ(engine.stats().requests_failed, 1);
  EXPECT_GE(engine.stats().steps_failed, 1);
  expect_all_blocks_free(engine);

  // The engine goes on serving.
  const auto after = run_batch(engine, {ids_request({1, 403, 261, 280, 304})});
  EXPECT_EQ(after.begin()->second.generated_ids, clean.at(0).generated_ids);
}

TEST(FailingStep, RequestWithNanLogitsFailsAloneWithoutRerunningTheStep) {
  const FaultyStories m;
  std::map<RequestId, RequestResult> clean;
  {
    Engine engine(*m.model, m.backend, batch_options());
    clean = run_batch(engine, three_requests(false));
  }
  // The middle request's token 400 embeds as NaN: its logits are NaN, the step succeeds.
  const EnvVar nan_row("FAULTY_ROWS_NAN", std::to_string(kPoison));
  Engine engine(*m.model, m.backend, batch_options());
  const auto results = run_batch(engine, three_requests(true));
  ASSERT_EQ(results.size(), 3u);
  for (RequestId id : {0, 2}) {
    EXPECT_EQ(results.at(id).generated_ids, clean.at(id).generated_ids) << id;  // no token twice
    EXPECT_EQ(results.at(id).finish, FinishReason::Length) << id;
  }
  EXPECT_EQ(results.at(1).finish, FinishReason::Error);
  EXPECT_TRUE(results.at(1).generated_ids.empty());
  EXPECT_THAT(results.at(1).error, HasSubstr("sampler: logit of token 0 is NaN"));
  EXPECT_EQ(engine.stats().requests_failed, 1);
  EXPECT_EQ(engine.stats().steps_failed, 0);  // no kernel failed
  expect_all_blocks_free(engine);
}

TEST(FailingStep, TransientFaultIsRetriedAndLosesNothing) {
  const FaultyStories m;
  std::map<RequestId, RequestResult> clean;
  {
    Engine engine(*m.model, m.backend, batch_options());
    clean = run_batch(engine, three_requests(false));
  }
  // Call 5: a decode step of all three (two get_rows a step: embedding and outputs).
  const EnvVar once("FAULTY_ROWS_FAIL_CALL", "5");
  Engine engine(*m.model, m.backend, batch_options());
  const auto results = run_batch(engine, three_requests(false));
  for (RequestId id = 0; id < 3; ++id) {
    EXPECT_EQ(results.at(id).generated_ids, clean.at(id).generated_ids) << id;
    EXPECT_EQ(results.at(id).finish, FinishReason::Length) << id;
  }
  EXPECT_EQ(engine.stats().requests_failed, 0);
  EXPECT_EQ(engine.stats().steps_failed, 1);  // the fault happened, and was survived
  expect_all_blocks_free(engine);
}

TEST(FailingStep, LoneRequestThatFailsEndsWithTheErrorInsteadOfThrowing) {
  const FaultyStories m;
  const EnvVar poison("FAULTY_ROWS_POISON", std::to_string(kPoison));
  Engine engine(*m.model, m.backend, batch_options());
  const auto results = run_batch(engine, {ids_request({1, kPoison})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second.finish, FinishReason::Error);
  EXPECT_EQ(finish_reason_name(FinishReason::Error), "error");
  expect_all_blocks_free(engine);
}

}  // namespace
}  // namespace tessera::test
