// `tessera serve` through curl: the raw Server-Sent Events framing of a stream, every
// refusal in OpenAI's error shape with its status (the server serving on after each),
// the API key, a request failing in the engine (500, or an error event) while the
// others finish, a client leaving mid-stream (its request cancelled, its KV blocks
// freed), the log line per request, and SIGTERM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <future>

#include "serve_process.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string stories() { return testdata_path("stories260K/stories260K.gguf"); }

CurlReply post(const ServeProcess& s, const std::string& path, const std::string& json, const std::string& extra = "") {
  return curl(extra + " -H 'Content-Type: application/json' -d " + shell_quote(json) + " " + shell_quote(s.url(path)));
}

CurlReply get(const ServeProcess& s, const std::string& path, const std::string& extra = "") {
  return curl(extra + " " + shell_quote(s.url(path)));
}

// The value of an unlabelled sample of /metrics, -1 when absent.
double metric(const ServeProcess& s, const std::string& name) {
  const std::string text = get(s, "/metrics").body;
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

std::vector<std::string> sse_events(const std::string& body) {
  std::vector<std::string> events;
  for (size_t start = 0; start < body.size();) {
    const size_t end = body.find("\n\n", start);
    if (end == std::string::npos) {
      events.push_back(body.substr(start));  // not terminated: a framing error the test reports
      break;
    }
    events.push_back(body.substr(start, end - start));
    start = end + 2;
  }
  return events;
}

TEST(ServeCli, ChatStreamIsFramedAsServerSentEvents) {
  ServeProcess s({"-m", stories(), "--chat-template", "chatml"});
  const CurlReply r = post(s, "/v1/chat/completions",
                           R"({"messages": [{"role": "user", "content": "Once upon a time"}], "stream": true,
                               "max_tokens": 5, "temperature": 0, "ignore_eos": true})");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::vector<std::string> events = sse_events(r.body);
  ASSERT_EQ(events.size(), 8u) << r.body;  // role, 5 tokens, finish, [DONE]
  for (const std::string& e : events) EXPECT_THAT(e, StartsWith("data: ")) << r.body;
  EXPECT_THAT(events[0], HasSubstr(R"("object":"chat.completion.chunk")"));
  EXPECT_THAT(events[0],
              HasSubstr(R"("delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null)"));
  for (size_t i = 1; i <= 5; ++i) EXPECT_THAT(events[i], HasSubstr(R"("delta":{"content":)"));
  EXPECT_THAT(events[6], HasSubstr(R"("delta":{},"logprobs":null,"finish_reason":"length"}])"));
  EXPECT_EQ(events[7], "data: [DONE]");
  EXPECT_EQ(r.body.substr(r.body.size() - 2), "\n\n");
}

TEST(ServeCli, RefusalsAreOpenAIErrorsAndTheServerServesOn) {
  ServeProcess s({"-m", stories(), "--chat-template", "llama2", "--max-body", "4K"});
  const std::string hello = R"("messages": [{"role": "user", "content": "Hi"}])";
  struct Case {
    const char* what;
    std::string path, body;
    int status;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"invalid JSON", "/v1/chat/completions", "{\"messages\": [", 400, R"("type":"invalid_request_error")"},
      {"wrong type", "/v1/chat/completions", "{" + hello + R"(, "temperature": "hot"})", 400,
       R"({"error":{"message":"invalid type for 'temperature': expected a number, got a string",)"
       R"("type":"invalid_request_error","param":"temperature","code":null}})"},
      {"unknown model", "/v1/chat/completions", "{" + hello + R"(, "model": "gpt-4o"})", 404,
       R"({"error":{"message":"the model 'gpt-4o' does not exist; this server serves 'stories260K'",)"
       R"("type":"invalid_request_error","param":"model","code":"model_not_found"}})"},
      {"prompt longer than the context", "/v1/completions",
       R"({"prompt": [1)" +
           [] {
             std::string ids;
             for (int i = 0; i < 199; ++i) ids += ", 300";
             return ids;
           }() +
           "]}",
       400,
       R"({"error":{"message":"this model's maximum context length is 128 tokens, but the prompt has 200 tokens; )"
       R"(shorten it","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}})"},
      {"absurd max_tokens", "/v1/completions", R"({"prompt": "Once", "max_tokens": 1000000000})", 400,
       R"("code":"context_length_exceeded")"},
      {"negative max_tokens", "/v1/completions", R"({"prompt": "Once", "max_tokens": -1})", 400,
       R"("param":"max_tokens")"},
      {"empty messages", "/v1/chat/completions", R"({"messages": []})", 400,
       R"({"error":{"message":"invalid value for 'messages': the list is empty","type":"invalid_request_error",)"
       R"("param":"messages","code":null}})"},
      {"a role the template refuses", "/v1/chat/completions",
       R"({"messages": [{"role": "assistant", "content": "Hi"}]})", 400,
       "llama2 conversations alternate user and assistant turns, starting with the user"},
      {"a body over --max-body", "/v1/completions", R"({"prompt": ")" + std::string(5000, 'a') + "\"}", 413,
       R"x({"error":{"message":"the request body is larger than the server accepts (--max-body)",)x"
       R"("type":"invalid_request_error","param":null,"code":"request_too_large"}})"},
      {"no such route", "/v2/anything", "{}", 404, R"("code":"not_found")"},
  };
  for (const Case& c : cases) {
    const CurlReply r = post(s, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.what << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.error)) << c.what;
    EXPECT_EQ(get(s, "/health").status, 200) << "after " << c.what;
  }
  const CurlReply ok = post(s, "/v1/completions", R"({"prompt": "Once upon a time", "max_tokens": 4})");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(s.stop(), 0);
}

TEST(ServeCli, ApiKeyGuardsEveryRouteButHealth) {
  ServeProcess s({"-m", stories(), "--api-key", "sesame"});
  const std::string body = R"({"prompt": "Once", "max_tokens": 2})";
  const CurlReply none = post(s, "/v1/completions", body);
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, R"({"error":{"message":"missing or incorrect API key","type":"invalid_request_error",)"
                       R"("param":null,"code":"invalid_api_key"}})");
  EXPECT_EQ(post(s, "/v1/completions", body, "-H 'Authorization: Bearer sesamf'").status, 401);
  EXPECT_EQ(get(s, "/v1/models").status, 401);
  EXPECT_EQ(get(s, "/metrics").status, 401);
  EXPECT_EQ(post(s, "/v1/completions", body, "-H 'Authorization: Bearer sesame'").status, 200);
  EXPECT_EQ(get(s, "/v1/models", "-H 'Authorization: Bearer sesame'").status, 200);
  EXPECT_EQ(get(s, "/health").body, R"({"status":"ok"})");
}

TEST(ServeCli, AFailingRequestIsA500OrAnErrorEventAndTheOthersFinish) {
  // faulty_rows fails any step that reads token 400; the prompts below avoid it but the poisoned ones.
  ServeProcess s({"-m", stories(), "--plugin-dir", TESSERA_FAULTY_PLUGIN_DIR, "--ctx", "2048"},
                 {"FAULTY_ROWS_POISON=400"});
  const std::string alone_body = R"({"prompt": [1, 403, 261, 280, 304], "max_tokens": 200, "temperature": 0,
                                     "ignore_eos": true})";
  const std::string expected = post(s, "/v1/completions", alone_body).body;
  auto healthy = std::async(std::launch::async, [&] { return post(s, "/v1/completions", alone_body); });
  const CurlReply failed = post(s, "/v1/completions", R"({"prompt": [1, 300, 400, 320], "max_tokens": 8})");
  EXPECT_EQ(failed.status, 500);
  EXPECT_THAT(failed.body, HasSubstr(R"({"error":{"message":"generation failed in the engine: )"));
  EXPECT_THAT(failed.body, HasSubstr(R"(faulty_rows: token 400 is poison)"));
  EXPECT_THAT(failed.body, HasSubstr(R"("type":"server_error")"));
  const CurlReply streamed =
      post(s, "/v1/completions", R"({"prompt": [1, 300, 400, 320], "max_tokens": 8, "stream": true})");
  EXPECT_EQ(streamed.status, 200);  // the stream had begun: the failure is an event
  const std::vector<std::string> events = sse_events(streamed.body);
  ASSERT_EQ(events.size(), 2u) << streamed.body;
  EXPECT_THAT(events[0], StartsWith(R"(data: {"error":{"message":"generation failed in the engine: )"));
  EXPECT_EQ(events[1], "data: [DONE]");
  const CurlReply other = healthy.get();
  EXPECT_EQ(other.status, 200);
  // The same text as alone (the id and time differ).
  const auto text_of = [](const std::string& body) { return body.substr(body.find(R"("choices")")); };
  EXPECT_EQ(text_of(other.body), text_of(expected));
  EXPECT_EQ(metric(s, "tessera_requests_failed_total"), 2);
}

TEST(ServeCli, AClientLeavingMidStreamIsCancelledAndItsBlocksFreed) {
  ServeProcess s({"-m", stories(), "--ctx", "2048"});
  // 2000 tokens take seconds; the client leaves after 0.5 s.
  const CommandResult r = run_command("curl -sS -N --max-time 0.5 -d " +
                                      shell_quote(R"({"prompt": "Once", "max_tokens": 2000, "stream": true,
                                                      "ignore_eos": true})") +
                                      " " + shell_quote(s.url("/v1/completions")));
  EXPECT_EQ(r.exit_code, 28) << r.err;  // curl's "operation timed out"
  const std::string cancelled = "tessera_requests_finished_total{reason=\"cancelled\"} 1";
  std::string text;
  for (int i = 0; i < 100 && text.find(cancelled) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    text = get(s, "/metrics").body;
  }
  EXPECT_THAT(text, HasSubstr(cancelled));
  EXPECT_THAT(text, HasSubstr("\ntessera_kv_blocks_used 0\n"));
  EXPECT_THAT(text, HasSubstr("\ntessera_requests_running 0\n"));
  EXPECT_LT(metric(s, "tessera_generation_tokens_total"), 1900);
}

TEST(ServeCli, LogsOneLinePerRequestAndStopsOnSigterm) {
  ServeProcess s({"-m", stories()});
  EXPECT_EQ(post(s, "/v1/completions", R"({"prompt": "Once upon a time", "max_tokens": 3, "ignore_eos": true})").status,
            200);
  EXPECT_EQ(post(s, "/v1/completions", R"({"prompt": 3})").status, 400);
  EXPECT_EQ(s.stop(SIGTERM), 0);
  const std::string err = s.stderr_text();
  EXPECT_THAT(err, HasSubstr("tessera serve: POST /v1/completions 200 tokens=5+3 ms="));
  EXPECT_THAT(err, HasSubstr("tessera serve: POST /v1/completions 400 tokens=- ms="));
  // The access log line of the last request is written after its response was sent,
  // so it may come after "stopping"; "stopped" is always the last line.
  EXPECT_THAT(err, HasSubstr("tessera serve: SIGTERM: stopping\n"));
  EXPECT_TRUE(err.ends_with("\ntessera serve: stopped\n")) << err;
}

TEST(ServeCli, SigintDuringAStreamEndsItAndTheServer) {
  ServeProcess s({"-m", stories(), "--ctx", "2048"});
  auto stream = std::async(std::launch::async, [&] {
    return post(s, "/v1/completions", R"({"prompt": "Once", "max_tokens": 2000, "stream": true, "ignore_eos": true})");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(s.stop(SIGINT), 0);
  const CurlReply r = stream.get();
  EXPECT_THAT(r.body,
              HasSubstr(R"(data: {"error":{"message":"the request was cancelled: the server is shutting down")"));
}

}  // namespace
}  // namespace tessera::test
