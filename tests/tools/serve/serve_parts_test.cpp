// The small parts of `tessera serve`: the context checks and engine requests of
// prompt_builder, the Prometheus histogram and exposition, the request log line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/prompt_builder.h"
#include "tools/tessera/serve/request_log.h"
#include "tools/tessera/serve/serve_metrics.h"

namespace tessera::serve {
namespace {

using ::testing::HasSubstr;

ServedModel model_of_context(int64_t n_ctx) {
  ServedModel m;
  m.id = "stories260K";
  m.n_ctx = n_ctx;
  m.no_chat_reason = "no template";
  return m;
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    return std::to_string(e.status()) + " " + e.code() + ": " + e.what();
  }
  return "accepted";
}

TEST(PromptBuilder, MaxTokensDefaultsAndLimits) {
  const ServedModel m = model_of_context(512);
  EXPECT_EQ(resolve_max_tokens(m, 12, std::nullopt, -1), 500);  // chat: the rest of the context
  EXPECT_EQ(resolve_max_tokens(m, 12, std::nullopt, 16), 16);   // completions: 16
  EXPECT_EQ(resolve_max_tokens(m, 500, std::nullopt, 16), 12);  // ... or what is left
  EXPECT_EQ(resolve_max_tokens(m, 12, 500, -1), 500);
  EXPECT_EQ(resolve_max_tokens(m, 512, 0, 16), 0);
}

TEST(PromptBuilder, ContextOverflowIsA400WithOpenAIsCode) {
  const ServedModel m = model_of_context(512);
  EXPECT_EQ(refusal([&] { resolve_max_tokens(m, 600, std::nullopt, 16); }),
            "400 context_length_exceeded: this model's maximum context length is 512 tokens, but the prompt has 600 "
            "tokens; shorten it");
  EXPECT_EQ(refusal([&] { resolve_max_tokens(m, 12, 501, -1); }),
            "400 context_length_exceeded: this model's maximum context length is 512 tokens, but 513 tokens were "
            "requested (12 in the prompt, 501 in the completion); shorten the prompt or lower max_tokens");
  EXPECT_EQ(refusal([&] { resolve_max_tokens(m, 512, std::nullopt, -1); }),
            "400 context_length_exceeded: this model's maximum context length is 512 tokens and the prompt fills it "
            "(512 tokens): no room is left for an answer");
}

TEST(PromptBuilder, UnknownModelIsA404) {
  const ServedModel m = model_of_context(512);
  EXPECT_EQ(refusal([&] { check_model_name(m, ""); }), "accepted");
  EXPECT_EQ(refusal([&] { check_model_name(m, "stories260K"); }), "accepted");
  EXPECT_EQ(refusal([&] { check_model_name(m, "gpt-4o"); }),
            "404 model_not_found: the model 'gpt-4o' does not exist; this server serves 'stories260K'");
}

TEST(PromptBuilder, ChatWithoutATemplateIsA400) {
  const ServedModel m = model_of_context(512);
  EXPECT_EQ(refusal([&] { chat_prompt_ids(m, {{"user", "hi"}}); }), "400 : no template");
}

TEST(PromptBuilder, EngineRequestsOfChoicesHaveTheirOwnSeeds) {
  GenerationParams p;
  p.seed = 41;
  p.stop = {"\n"};
  p.logprobs = 2;
  const Request a = engine_request({1, 2}, p, 8, 0, {7});
  const Request b = engine_request({1, 2}, p, 8, 1, {7});
  EXPECT_EQ(a.sampling.seed, 41u);
  EXPECT_EQ(b.sampling.seed, 42u);
  EXPECT_EQ(a.max_tokens, 8);
  EXPECT_EQ(a.stop.stop_texts, std::vector<std::string>{"\n"});
  EXPECT_EQ(a.stop.stop_token_ids, std::vector<int32_t>{7});
  EXPECT_EQ(a.logprobs, 2);
  p.seed = std::nullopt;
  EXPECT_EQ(engine_request({1}, p, 8, 3, {}).sampling.seed, 0u);  // random
  p.seed = 0;
  EXPECT_NE(engine_request({1}, p, 8, 0, {}).sampling.seed, 0u);  // a request's 0 is a fixed seed, not "random"
  p.ignore_eos = true;
  EXPECT_TRUE(engine_request({1}, p, 8, 0, {7}).stop.stop_token_ids.empty());
}

TEST(ServeMetrics, HistogramIsCumulativeWithSumAndCount) {
  Histogram h({0.1, 1});
  h.observe(0.05);
  h.observe(0.5);
  h.observe(0.5);
  h.observe(3);
  EXPECT_EQ(h.text("t"),
            "t_bucket{le=\"0.1\"} 1\nt_bucket{le=\"1\"} 3\nt_bucket{le=\"+Inf\"} 4\nt_sum 4.05\nt_count 4\n");
}

TEST(ServeMetrics, ExpositionReportsTheEngineAndTheRequests) {
  ServeMetrics m;
  const auto t0 = ServeMetrics::Clock::time_point{} + std::chrono::hours(1);
  EngineStats s;
  s.requests_running = 3;
  s.requests_waiting = 2;
  s.tokens_generated = 100;
  s.kv.blocks_total = 64;
  s.kv.blocks_used = 10;
  s.kv.blocks_cached = 4;
  s.kv.prefix_hit_rate = 0.25;
  s.preemptions = 1;
  s.requests_failed = 2;
  m.publish(s, t0);
  s.tokens_generated = 300;
  m.publish(s, t0 + std::chrono::seconds(2));
  RequestResult r;
  r.finish = FinishReason::Length;
  r.generated_ids = {1, 2, 3};
  r.prompt_ids = {1, 2};
  r.ttft_ms = 30;
  r.total_ms = 50;  // tpot 10 ms
  m.on_finished(r);
  m.on_http(200);
  m.on_http(400);
  m.on_http(200);
  const std::string text = m.prometheus_text(t0 + std::chrono::seconds(4));
  EXPECT_THAT(text, HasSubstr("# TYPE tessera_requests_running gauge\ntessera_requests_running 3\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_requests_waiting 2\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE tessera_generation_tokens_total counter\ntessera_generation_tokens_total 300\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_generation_tokens_per_second 50\n"));  // 300 - 100 tokens in 4 s
  EXPECT_THAT(text, HasSubstr("\ntessera_prompt_tokens_total 2\n"));
  EXPECT_THAT(text, HasSubstr("tessera_time_to_first_token_seconds_bucket{le=\"0.02\"} 0\n"
                              "tessera_time_to_first_token_seconds_bucket{le=\"0.05\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tessera_time_per_output_token_seconds_bucket{le=\"0.01\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_kv_blocks_total 64\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_kv_blocks_used 10\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_kv_blocks_cached 4\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_prefix_cache_hit_rate 0.25\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_preemptions_total 1\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_requests_failed_total 2\n"));
  EXPECT_THAT(text, HasSubstr("tessera_requests_finished_total{reason=\"length\"} 1\n"));
  EXPECT_THAT(
      text,
      HasSubstr("tessera_http_requests_total{status=\"200\"} 2\ntessera_http_requests_total{status=\"400\"} 1\n"));
}

TEST(RequestLog, LineNamesMethodPathStatusTokensAndMilliseconds) {
  EXPECT_EQ(request_log_line("POST", "/v1/completions", 200, 12, 34, 56.78),
            "POST /v1/completions 200 tokens=12+34 ms=56.8");
  EXPECT_EQ(request_log_line("GET", "/health", 200, -1, -1, 0.04), "GET /health 200 tokens=- ms=0.0");
  EXPECT_EQ(request_log_line("POST", "/x", 413, -1, -1, -1), "POST /x 413 tokens=- ms=-");
}

}  // namespace
}  // namespace tessera::serve
