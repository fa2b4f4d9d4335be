// CallOutput: a call's events turned into the exact stream of Server-Sent Events (role
// chunk first, content chunks, a finish chunk, the usage chunk, [DONE]) or the whole
// response; a failed choice becomes an error event or a 500.
#include "tools/tessera/serve/call_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_tokenizer.h"
#include "tools/tessera/serve/response_json.h"

namespace tessera::serve {
namespace {

using ::testing::HasSubstr;

CallPlan plan(Endpoint endpoint, int32_t n, bool include_usage, int32_t logprobs = -1) {
  CallPlan p;
  p.endpoint = endpoint;
  p.head = ResponseHead{"id-1", 1700000000, "m"};
  p.params.n = n;
  p.params.stream = true;
  p.params.include_usage = include_usage;
  p.params.logprobs = logprobs;
  p.prompt_tokens = 4;
  for (int32_t i = 0; i < n; ++i) {
    PlannedChoice c;
    c.index = i;
    c.request.prompt_ids = {1, 5, 6, 7};
    p.choices.push_back(std::move(c));
  }
  return p;
}

RequestEvent token(RequestId id, int32_t t, std::string text) {
  RequestEvent e;
  e.id = id;
  e.token = t;
  e.text = std::move(text);
  return e;
}

RequestEvent last(RequestId id, std::string text, FinishReason reason, size_t generated) {
  RequestEvent e;
  e.id = id;
  e.text = std::move(text);
  auto r = std::make_shared<RequestResult>();
  r->finish = reason;
  r->generated_ids.assign(generated, 9);
  if (reason == FinishReason::Error) r->error = "kernel get_rows failed";
  e.result = r;
  return e;
}

const std::string kChunk = R"(data: {"id":"id-1","object":"chat.completion.chunk","created":1700000000,"model":"m",)";

TEST(CallOutput, ChatStreamIsRoleContentFinishUsageDone) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Chat, 1, true), tok);
  std::string s = out.stream_begin();
  s += out.stream_event(0, token(0, 10, "Hel"));
  s += out.stream_event(0, token(0, 11, ""));  // a token whose text is held back adds nothing
  s += out.stream_event(0, last(0, "lo", FinishReason::Eos, 2));
  s += out.stream_end();
  EXPECT_EQ(s, kChunk +
                   R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,)"
                   R"("finish_reason":null}],"usage":null})"
                   "\n\n" +
                   kChunk +
                   R"("choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}],)"
                   R"("usage":null})"
                   "\n\n" +
                   kChunk +
                   R"("choices":[{"index":0,"delta":{"content":"lo"},"logprobs":null,"finish_reason":null}],)"
                   R"("usage":null})"
                   "\n\n" +
                   kChunk +
                   R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null})"
                   "\n\n" +
                   kChunk +
                   R"("choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}})"
                   "\n\n"
                   "data: [DONE]\n\n");
  EXPECT_FALSE(out.error());
}

TEST(CallOutput, ChatStreamCarriesEachTokensLogprobs) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Chat, 1, false, 1), tok);
  RequestEvent e = token(0, 10, "<10>");
  e.logprobs = TokenLogprobs{{10, -0.5f}, {{10, -0.5f}}};
  EXPECT_EQ(out.stream_event(0, e),
            kChunk + R"("choices":[{"index":0,"delta":{"content":"<10>"},"logprobs":{"content":[{"token":"<10>",)"
                     R"("logprob":-0.5,"bytes":[60,49,48,62],"top_logprobs":[{"token":"<10>","logprob":-0.5,)"
                     R"("bytes":[60,49,48,62]}]}],"refusal":null},"finish_reason":null}]})"
                     "\n\n");
}

TEST(CallOutput, CompletionStreamPutsTheFinishReasonOnTheLastText) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Completion, 1, false), tok);
  std::string s = out.stream_begin();  // no echo: nothing before the first token
  s += out.stream_event(0, token(0, 10, " a"));
  s += out.stream_event(0, last(0, "", FinishReason::Length, 1));
  s += out.stream_end();
  const std::string head = R"(data: {"id":"id-1","object":"text_completion","created":1700000000,"model":"m",)";
  EXPECT_EQ(s, head +
                   R"("choices":[{"index":0,"text":" a","logprobs":null,"finish_reason":null}]})"
                   "\n\n" +
                   head +
                   R"("choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length"}]})"
                   "\n\n"
                   "data: [DONE]\n\n");
}

TEST(CallOutput, AFailedChoiceIsAnErrorEventAndNothingAfterIt) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Chat, 2, false), tok);
  EXPECT_EQ(out.stream_event(1, last(1, "", FinishReason::Error, 0)),
            R"(data: {"error":{"message":"generation failed in the engine: kernel get_rows failed",)"
            R"("type":"server_error","param":null,"code":null}})"
            "\n\n");
  EXPECT_EQ(out.stream_event(0, token(0, 10, "x")), "");
  ASSERT_TRUE(out.error());
  EXPECT_EQ(out.error()->status(), 500);
}

TEST(CallOutput, WholeResponseGathersChoicesInIndexOrder) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Completion, 2, false), tok);
  out.add(1, token(1, 10, "B"));
  out.add(0, token(0, 11, "A"));
  out.add(1, last(1, "b", FinishReason::StopText, 1));
  out.add(0, last(0, "a", FinishReason::Context, 1));
  EXPECT_EQ(json_text(out.response()),
            R"({"id":"id-1","object":"text_completion","created":1700000000,"model":"m","choices":[)"
            R"({"index":0,"text":"Aa","logprobs":null,"finish_reason":"length"},)"
            R"({"index":1,"text":"Bb","logprobs":null,"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}})");
}

TEST(CallOutput, WholeResponseOfAFailedChoiceIsA500) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Chat, 1, false), tok);
  out.add(0, last(0, "", FinishReason::Error, 0));
  try {
    (void)out.response();
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_THAT(e.what(), HasSubstr("kernel get_rows failed"));
  }
}

TEST(CallOutput, ShutdownCancellationIsA503) {
  FakeTokenizer tok;
  CallOutput out(plan(Endpoint::Chat, 1, false), tok);
  out.add(0, last(0, "", FinishReason::Cancelled, 0));
  ASSERT_TRUE(out.error());
  EXPECT_EQ(out.error()->status(), 503);
}

TEST(CallOutput, EchoOpensTheCompletionStreamAndPrefixesTheText) {
  FakeTokenizer tok;
  CallPlan p = plan(Endpoint::Completion, 1, false);
  p.choices[0].echo = "Once";
  CallOutput out(p, tok);
  EXPECT_EQ(out.stream_begin(), R"(data: {"id":"id-1","object":"text_completion","created":1700000000,"model":"m",)"
                                R"("choices":[{"index":0,"text":"Once","logprobs":null,"finish_reason":null}]})"
                                "\n\n");
  out.add(0, last(0, " upon", FinishReason::Length, 1));
  EXPECT_EQ(out.response()["choices"][0]["text"], "Once upon");
}

}  // namespace
}  // namespace tessera::serve
