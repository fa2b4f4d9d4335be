// parse_chat_request / parse_completion_request: every field read with its type and
// range, OpenAI's defaults, and each refusal with its exact status, message and param.
#include "tools/tessera/serve/request_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {
namespace {

using ::testing::ElementsAre;

// The error a body gets: "status param: message".
template <typename Parse>
std::string refusal(Parse parse, const std::string& body) {
  try {
    parse(body);
  } catch (const ApiError& e) {
    return std::to_string(e.status()) + " " + (e.param().empty() ? "-" : e.param()) + ": " + e.what();
  }
  return "accepted";
}

std::string chat_refusal(const std::string& body) { return refusal(parse_chat_request, body); }
std::string completion_refusal(const std::string& body) { return refusal(parse_completion_request, body); }

const char* kHello = R"("messages": [{"role": "user", "content": "Hello"}])";

TEST(ChatRequestParser, MinimalBodyTakesOpenAIsDefaults) {
  const ChatCompletionRequest r = parse_chat_request(std::string("{") + kHello + "}");
  EXPECT_EQ(r.model, "");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, "user");
  EXPECT_EQ(r.messages[0].content, "Hello");
  const GenerationParams& p = r.params;
  EXPECT_EQ(p.max_tokens, std::nullopt);
  EXPECT_EQ(p.sampling.temperature, 1.0f);
  EXPECT_EQ(p.sampling.top_p, 1.0f);
  EXPECT_EQ(p.sampling.top_k, 0);
  EXPECT_EQ(p.sampling.min_p, 0.0f);
  EXPECT_EQ(p.sampling.presence_penalty, 0.0f);
  EXPECT_EQ(p.sampling.frequency_penalty, 0.0f);
  EXPECT_EQ(p.seed, std::nullopt);
  EXPECT_TRUE(p.stop.empty());
  EXPECT_EQ(p.n, 1);
  EXPECT_FALSE(p.stream);
  EXPECT_FALSE(p.include_usage);
  EXPECT_EQ(p.logprobs, -1);
}

TEST(ChatRequestParser, ReadsEveryField) {
  const ChatCompletionRequest r = parse_chat_request(R"({
    "model": "stories", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    "max_tokens": 7, "temperature": 0.5, "top_p": 0.9, "seed": -3, "stop": ["\n", "END"], "n": 3,
    "presence_penalty": 0.25, "frequency_penalty": -1.5, "logprobs": true, "top_logprobs": 4,
    "stream": true, "stream_options": {"include_usage": true}, "user": "ignored", "top_k": 20, "min_p": 0.1})");
  EXPECT_EQ(r.model, "stories");
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[0].content, "Be brief.");
  const GenerationParams& p = r.params;
  EXPECT_EQ(p.max_tokens, 7);
  EXPECT_EQ(p.sampling.temperature, 0.5f);
  EXPECT_EQ(p.sampling.top_p, 0.9f);
  EXPECT_EQ(p.sampling.top_k, 20);
  EXPECT_EQ(p.sampling.min_p, 0.1f);
  EXPECT_EQ(p.sampling.presence_penalty, 0.25f);
  EXPECT_EQ(p.sampling.frequency_penalty, -1.5f);
  EXPECT_EQ(p.seed, -3);
  EXPECT_THAT(p.stop, ElementsAre("\n", "END"));
  EXPECT_EQ(p.n, 3);
  EXPECT_TRUE(p.stream);
  EXPECT_TRUE(p.include_usage);
  EXPECT_EQ(p.logprobs, 4);
}

TEST(ChatRequestParser, MaxCompletionTokensWinsOverMaxTokens) {
  const ChatCompletionRequest r =
      parse_chat_request(std::string("{") + kHello + R"(, "max_tokens": 9, "max_completion_tokens": 5})");
  EXPECT_EQ(r.params.max_tokens, 5);
}

TEST(ChatRequestParser, StopStringBecomesAListOfOne) {
  EXPECT_THAT(parse_chat_request(std::string("{") + kHello + R"(, "stop": "###"})").params.stop, ElementsAre("###"));
}

TEST(ChatRequestParser, LogprobsWithoutTopLogprobsMeansNoAlternatives) {
  EXPECT_EQ(parse_chat_request(std::string("{") + kHello + R"(, "logprobs": true})").params.logprobs, 0);
}

TEST(ChatRequestParser, TextPartsAreJoinedAndDeveloperIsSystem) {
  const ChatCompletionRequest r = parse_chat_request(R"({"messages": [
    {"role": "developer", "content": "Rules."},
    {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
    {"role": "assistant", "content": null}]})");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].content, "one\ntwo");
  EXPECT_EQ(r.messages[2].content, "");
}

TEST(ChatRequestParser, RefusesBodiesThatAreNotAJsonObject) {
  EXPECT_EQ(chat_refusal("{\"messages\": ["),
            "400 -: the body is not valid JSON: parse error at line 1, column 15: "
            "syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(chat_refusal("[1, 2]"), "400 -: the body must be a JSON object, got an array");
  EXPECT_EQ(chat_refusal(""),
            "400 -: the body is not valid JSON: parse error at line 1, column 1: "
            "syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
}

TEST(ChatRequestParser, RefusesANumberTooBigForADouble) {
  // Found by the serve_request fuzz target: the library's out_of_range escaped.
  EXPECT_EQ(chat_refusal(R"({"messages": [], "temperature": 1e999})"),
            "400 -: the body is not valid JSON: number overflow parsing '1e999'");
}

TEST(ChatRequestParser, RefusesMissingOrEmptyMessages) {
  EXPECT_EQ(chat_refusal("{}"), "400 messages: missing required parameter: 'messages'");
  EXPECT_EQ(chat_refusal(R"({"messages": []})"), "400 messages: invalid value for 'messages': the list is empty");
  EXPECT_EQ(chat_refusal(R"({"messages": "hi"})"),
            "400 messages: invalid type for 'messages': expected an array, got a string");
}

TEST(ChatRequestParser, RefusesBadMessages) {
  EXPECT_EQ(chat_refusal(R"({"messages": [{"content": "x"}]})"),
            "400 messages[0].role: missing required parameter: 'messages[0].role'");
  EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "user", "content": "a"}, {"role": "wizard", "content": "x"}]})"),
            "400 messages[1].role: invalid value for 'messages[1].role': 'wizard'; supported roles are system, "
            "developer, user, assistant and tool");
  EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "user", "content": 5}]})"),
            "400 messages[0].content: invalid type for 'messages[0].content': expected a string or an array of "
            "content parts, got an integer");
  EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]})"),
            "400 messages[0].content: invalid value for 'messages[0].content': only text parts ({\"type\": \"text\", "
            "\"text\": ...}) are supported");
  // A part whose type is not a string (a fuzzer's find: it escaped as json's type_error).
  for (const char* part : {R"({"type": [], "text": "Hi"})", R"({"type": "text", "text": 1})", R"("text")"}) {
    EXPECT_EQ(chat_refusal(std::string(R"({"messages": [{"role": "user", "content": [)") + part + "]}]}"),
              "400 messages[0].content: invalid value for 'messages[0].content': only text parts ({\"type\": "
              "\"text\", \"text\": ...}) are supported")
        << part;
  }
  EXPECT_EQ(chat_refusal(R"({"messages": [3]})"),
            "400 messages[0]: invalid type for 'messages[0]': expected an object, got an integer");
}

TEST(ChatRequestParser, RefusesFieldsOfTheWrongType) {
  const std::string head = std::string("{") + kHello + ", ";
  EXPECT_EQ(chat_refusal(head + R"("temperature": "hot"})"),
            "400 temperature: invalid type for 'temperature': expected a number, got a string");
  EXPECT_EQ(chat_refusal(head + R"("max_tokens": 5.5})"),
            "400 max_tokens: invalid type for 'max_tokens': expected an integer, got a number");
  EXPECT_EQ(chat_refusal(head + R"("stream": "yes"})"),
            "400 stream: invalid type for 'stream': expected a boolean, got a string");
  EXPECT_EQ(chat_refusal(head + R"("model": 7})"),
            "400 model: invalid type for 'model': expected a string, got an integer");
  EXPECT_EQ(chat_refusal(head + R"("stop": 7})"),
            "400 stop: invalid type for 'stop': expected a string or an array of strings, got an integer");
  EXPECT_EQ(chat_refusal(head + R"("stop": ["a", 1]})"),
            "400 stop: invalid type for 'stop': expected a string or an array of strings, got an integer");
  EXPECT_EQ(chat_refusal(head + R"("logprobs": 2})"),
            "400 logprobs: invalid type for 'logprobs': expected a boolean, got an integer");
  EXPECT_EQ(chat_refusal(head + R"("stream": true, "stream_options": true})"),
            "400 stream_options: invalid type for 'stream_options': expected an object, got a boolean");
}

TEST(ChatRequestParser, RefusesValuesOutOfRange) {
  const std::string head = std::string("{") + kHello + ", ";
  EXPECT_EQ(chat_refusal(head + R"("temperature": 2.5})"),
            "400 temperature: invalid value for 'temperature': 2.5 is not in [0, 2]");
  EXPECT_EQ(chat_refusal(head + R"("top_p": 0})"),
            "400 top_p: invalid value for 'top_p': must be greater than 0, got 0");
  EXPECT_EQ(chat_refusal(head + R"("max_tokens": 0})"),
            "400 max_tokens: invalid value for 'max_tokens': 0 is not in [1, 2147483647]");
  EXPECT_EQ(chat_refusal(head + R"("max_tokens": -5})"),
            "400 max_tokens: invalid value for 'max_tokens': -5 is not in [1, 2147483647]");
  EXPECT_EQ(chat_refusal(head + R"("max_tokens": 99999999999})"),
            "400 max_tokens: invalid value for 'max_tokens': 99999999999 is not in [1, 2147483647]");
  EXPECT_EQ(chat_refusal(head + R"("n": 0})"), "400 n: invalid value for 'n': 0 is not in [1, 128]");
  EXPECT_EQ(chat_refusal(head + R"("presence_penalty": -2.5})"),
            "400 presence_penalty: invalid value for 'presence_penalty': -2.5 is not in [-2, 2]");
  EXPECT_EQ(chat_refusal(head + R"("stop": ["a", "b", "c", "d", "e"]})"),
            "400 stop: invalid value for 'stop': at most 4 sequences, got 5");
  EXPECT_EQ(chat_refusal(head + R"("logprobs": true, "top_logprobs": 21})"),
            "400 top_logprobs: invalid value for 'top_logprobs': 21 is not in [0, 20]");
  EXPECT_EQ(chat_refusal(head + R"("seed": 18446744073709551615})"),
            "400 seed: invalid value for 'seed': 18446744073709551615 is too large");
}

TEST(ChatRequestParser, RefusesCombinationsAndFeaturesItLacks) {
  const std::string head = std::string("{") + kHello + ", ";
  EXPECT_EQ(chat_refusal(head + R"("top_logprobs": 2})"),
            "400 top_logprobs: 'top_logprobs' needs 'logprobs' set to true");
  EXPECT_EQ(chat_refusal(head + R"("stream_options": {"include_usage": true}})"),
            "400 stream_options: 'stream_options' is only allowed with 'stream': true");
  EXPECT_EQ(chat_refusal(head + R"("tools": [{"type": "function"}]})"),
            "400 tools: 'tools' is not supported by this server");
  EXPECT_EQ(chat_refusal(head + R"("logit_bias": {"50256": -100}})"),
            "400 logit_bias: 'logit_bias' is not supported by this server");
  EXPECT_EQ(chat_refusal(head + R"("response_format": {"type": "json_object"}})"),
            "400 response_format: 'response_format' other than {\"type\": \"text\"} is not supported by this server");
  EXPECT_EQ(chat_refusal(head + R"("tools": [], "logit_bias": {}, "response_format": {"type": "text"}})"), "accepted");
}

TEST(CompletionRequestParser, PromptIsATextOrTokenIdsOrAListOfEither) {
  const CompletionRequest text = parse_completion_request(R"({"prompt": "Once upon"})");
  ASSERT_EQ(text.prompts.size(), 1u);
  EXPECT_FALSE(text.prompts[0].is_ids);
  EXPECT_EQ(text.prompts[0].text, "Once upon");
  EXPECT_EQ(text.params.max_tokens, std::nullopt);

  const CompletionRequest texts = parse_completion_request(R"({"prompt": ["a", "b"]})");
  ASSERT_EQ(texts.prompts.size(), 2u);
  EXPECT_EQ(texts.prompts[1].text, "b");

  const CompletionRequest ids = parse_completion_request(R"({"prompt": [1, 403, 261]})");
  ASSERT_EQ(ids.prompts.size(), 1u);
  EXPECT_TRUE(ids.prompts[0].is_ids);
  EXPECT_THAT(ids.prompts[0].ids, ElementsAre(1, 403, 261));

  const CompletionRequest lists = parse_completion_request(R"({"prompt": [[1, 2], [3]]})");
  ASSERT_EQ(lists.prompts.size(), 2u);
  EXPECT_THAT(lists.prompts[1].ids, ElementsAre(3));
}

TEST(CompletionRequestParser, ReadsEchoLogprobsAndZeroMaxTokens) {
  const CompletionRequest r =
      parse_completion_request(R"({"prompt": "x", "echo": true, "logprobs": 3, "max_tokens": 0, "best_of": 1})");
  EXPECT_TRUE(r.echo);
  EXPECT_EQ(r.params.logprobs, 3);
  EXPECT_EQ(r.params.max_tokens, 0);
}

TEST(CompletionRequestParser, RefusesBadPrompts) {
  EXPECT_EQ(completion_refusal("{}"), "400 prompt: missing required parameter: 'prompt'");
  EXPECT_EQ(completion_refusal(R"({"prompt": []})"), "400 prompt: invalid value for 'prompt': the list is empty");
  EXPECT_EQ(completion_refusal(R"({"prompt": [[]]})"),
            "400 prompt: invalid value for 'prompt[0]': the prompt is empty");
  EXPECT_EQ(completion_refusal(R"({"prompt": 5})"),
            "400 prompt: invalid type for 'prompt': expected a string, an array of strings, an array of token ids or "
            "an array of such arrays, got an integer");
  EXPECT_EQ(completion_refusal(R"({"prompt": ["a", [1]]})"),
            "400 prompt: invalid type for 'prompt': expected a string, an array of strings, an array of token ids or "
            "an array of such arrays, got an array");
  EXPECT_EQ(completion_refusal(R"({"prompt": [1, "a"]})"),
            "400 prompt: invalid type for 'prompt': expected an array of token ids (integers), got a string");
  EXPECT_EQ(completion_refusal(R"({"prompt": [1, -4]})"),
            "400 prompt: invalid value for 'prompt': token id -4 is out of range");
}

TEST(CompletionRequestParser, RefusesWhatItLacksAndTooManyChoices) {
  EXPECT_EQ(completion_refusal(R"({"prompt": "x", "logprobs": 6})"),
            "400 logprobs: invalid value for 'logprobs': 6 is not in [0, 5]");
  EXPECT_EQ(completion_refusal(R"({"prompt": "x", "suffix": "end"})"),
            "400 suffix: 'suffix' is not supported by this server");
  EXPECT_EQ(completion_refusal(R"({"prompt": "x", "best_of": 3})"),
            "400 best_of: 'best_of' other than 'n' is not supported by this server");
  EXPECT_EQ(completion_refusal(R"({"prompt": ["a", "b", "c"], "n": 50})"),
            "400 n: too many choices: 3 prompts times n = 50 is more than 128");
  EXPECT_EQ(completion_refusal(R"({"prompt": "x", "max_tokens": -1})"),
            "400 max_tokens: invalid value for 'max_tokens': -1 is not in [0, 2147483647]");
}

}  // namespace
}  // namespace tessera::serve
