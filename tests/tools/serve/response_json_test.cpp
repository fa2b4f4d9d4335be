// The response objects and chunks, compared with the exact JSON text OpenAI's API
// writes (keys in its order), and the error object of every kind of failure.
#include "tools/tessera/serve/response_json.h"

#include <gtest/gtest.h>

#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {
namespace {

const ResponseHead kHead{"chatcmpl-abc", 1700000000, "stories260K"};

TEST(ResponseJson, ChatCompletion) {
  ChoiceOutput c;
  c.index = 0;
  c.text = "Paris.";
  c.finish_reason = "stop";
  EXPECT_EQ(json_text(chat_completion_json(kHead, {c}, Usage{12, 3})),
            R"({"id":"chatcmpl-abc","object":"chat.completion","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"logprobs":null,)"
            R"("finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}})");
}

TEST(ResponseJson, ChatCompletionWithLogprobs) {
  ChoiceOutput c;
  c.text = "Hi";
  c.finish_reason = "length";
  c.logprobs = std::vector<LogprobEntry>{{"Hi", -0.5f, {{"Hi", -0.5f}, {"Yo", -1.25f}}}};
  EXPECT_EQ(json_text(chat_completion_json(kHead, {c}, Usage{1, 1})),
            R"({"id":"chatcmpl-abc","object":"chat.completion","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"logprobs":{"content":[)"
            R"({"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[{"token":"Hi","logprob":-0.5,)"
            R"("bytes":[72,105]},{"token":"Yo","logprob":-1.25,"bytes":[89,111]}]}],"refusal":null},)"
            R"("finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})");
}

TEST(ResponseJson, ChatChunksRoleContentFinish) {
  ChatChunk role{0, {{"role", "assistant"}, {"content", ""}}, std::nullopt, ""};
  EXPECT_EQ(sse_event(chat_chunk_json(kHead, role, false)),
            "data: {\"id\":\"chatcmpl-abc\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
            "\"model\":\"stories260K\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
            "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  ChatChunk content{1, {{"content", " Paris"}}, std::nullopt, ""};
  EXPECT_EQ(json_text(chat_chunk_json(kHead, content, true)),
            R"({"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":1,"delta":{"content":" Paris"},"logprobs":null,"finish_reason":null}],)"
            R"("usage":null})");
  ChatChunk last{0, nlohmann::ordered_json::object(), std::nullopt, "stop"};
  EXPECT_EQ(json_text(chat_chunk_json(kHead, last, false)),
            R"({"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]})");
}

TEST(ResponseJson, UsageChunkHasNoChoices) {
  EXPECT_EQ(json_text(chat_usage_chunk_json(kHead, Usage{5, 7})),
            R"({"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"stories260K",)"
            R"("choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}})");
  EXPECT_EQ(json_text(completion_usage_chunk_json(kHead, Usage{5, 0})),
            R"({"id":"chatcmpl-abc","object":"text_completion","created":1700000000,"model":"stories260K",)"
            R"("choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}})");
}

TEST(ResponseJson, TextCompletionWithLegacyLogprobs) {
  ChoiceOutput c;
  c.index = 1;
  c.text = " there was";
  c.finish_reason = "length";
  c.logprobs =
      std::vector<LogprobEntry>{{" there", -0.25f, {{" there", -0.25f}, {" a", -2.0f}}}, {" was", -0.125f, {}}};
  EXPECT_EQ(json_text(completion_json(kHead, {c}, Usage{4, 2})),
            R"({"id":"chatcmpl-abc","object":"text_completion","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":1,"text":" there was","logprobs":{"tokens":[" there"," was"],)"
            R"("token_logprobs":[-0.25,-0.125],"top_logprobs":[{" there":-0.25," a":-2.0},{}],)"
            R"("text_offset":[0,6]},"finish_reason":"length"}],)"
            R"("usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}})");
}

TEST(ResponseJson, TextCompletionChunk) {
  ChoiceOutput c;
  c.text = " upon";
  EXPECT_EQ(json_text(completion_chunk_json(kHead, c, false)),
            R"({"id":"chatcmpl-abc","object":"text_completion","created":1700000000,"model":"stories260K",)"
            R"("choices":[{"index":0,"text":" upon","logprobs":null,"finish_reason":null}]})");
}

TEST(ResponseJson, Models) {
  EXPECT_EQ(json_text(models_json("stories260K", 1700000000)),
            R"({"object":"list","data":[{"id":"stories260K","object":"model","created":1700000000,)"
            R"("owned_by":"tessera"}]})");
}

TEST(ResponseJson, InvalidUtf8IsReplacedNotThrown) {
  ChoiceOutput c;
  c.text = std::string("caf\xC3", 4);  // the first byte of a two-byte character
  EXPECT_EQ(json_text(completion_chunk_json(kHead, c, false)).find("caf\xEF\xBF\xBD") != std::string::npos, true);
}

TEST(ResponseJson, SseDoneFrame) { EXPECT_STREQ(kSseDone, "data: [DONE]\n\n"); }

TEST(ApiErrorJson, ShapeWithParamAndCode) {
  EXPECT_EQ(json_text(error_json(invalid_request("bad n", "n", "some_code"))),
            R"({"error":{"message":"bad n","type":"invalid_request_error","param":"n","code":"some_code"}})");
  EXPECT_EQ(json_text(error_json(invalid_request("bad"))),
            R"({"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}})");
}

TEST(ApiErrorJson, StatusesWithoutAHandlersMessage) {
  EXPECT_EQ(json_text(error_json(error_for_status(413))),
            R"x({"error":{"message":"the request body is larger than the server accepts (--max-body)",)x"
            R"("type":"invalid_request_error","param":null,"code":"request_too_large"}})");
  EXPECT_EQ(
      json_text(error_json(error_for_status(404))),
      R"({"error":{"message":"no such endpoint","type":"invalid_request_error","param":null,"code":"not_found"}})");
  EXPECT_EQ(json_text(error_json(error_for_status(401))),
            R"({"error":{"message":"missing or incorrect API key","type":"invalid_request_error","param":null,)"
            R"("code":"invalid_api_key"}})");
  EXPECT_EQ(error_for_status(500).status(), 500);
  EXPECT_EQ(error_for_status(500).type(), "server_error");
}

}  // namespace
}  // namespace tessera::serve
