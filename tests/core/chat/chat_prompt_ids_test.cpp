// A rendered chat prompt to token ids, against Hugging Face's `tokenizers` (what
// apply_chat_template(..., tokenize=True) does: control tokens in the text matched as
// single tokens, the text between them encoded normally, no BOS for SmolLM2):
// tests/fixtures/chat_templates/smollm2_prompt_ids.json, written by
// tools/fixtures/make_chat_prompt_ids.py from every SmolLM2 rendering of cases.json.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/chat/chat_format.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/weight_file.h"
#include "support/testdata.h"

namespace tessera::chat {
namespace {

constexpr const char* kTemplate = "HuggingFaceTB-SmolLM2-135M-Instruct";

std::string read_source_file(const std::string& relative) {
  std::ifstream in(test::source_path(relative), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// SmolLM2's vocabulary (vocab-only GGUF) and its chat template, read once.
struct Smollm2 {
  std::unique_ptr<WeightFile> vocab =
      open_weight_file(test::source_path("tests/fixtures/tokenizer/ggml-vocab-smollm2.gguf"));
  std::unique_ptr<Tokenizer> tokenizer = make_tokenizer(*vocab);
  ChatFormat format{
      TemplateSource{read_source_file(std::string("tests/fixtures/chat_templates/") + kTemplate + ".jinja"), kTemplate},
      *tokenizer};
};

const Smollm2& smollm2() {
  static const Smollm2 s;
  return s;
}

nlohmann::json read_json(const std::string& relative) { return nlohmann::json::parse(read_source_file(relative)); }

std::string describe(const nlohmann::json& entry) {
  return "conversation " + std::to_string(entry["conversation"].get<int>()) +
         (entry["add_generation_prompt"].get<bool>() ? " +prompt" : "");
}

TEST(ChatPromptIds, EncodesEveryRenderingLikeHfTokenizers) {
  const auto entries = read_json("tests/fixtures/chat_templates/smollm2_prompt_ids.json");
  ASSERT_EQ(entries.size(), 8u);  // four conversations, with and without the generation prompt
  for (const auto& entry : entries) {
    ASSERT_EQ(entry["template"], kTemplate);
    EXPECT_EQ(smollm2().format.encode(entry["text"].get<std::string>()), entry["ids"].get<std::vector<int32_t>>())
        << describe(entry) << ": " << entry["text"];
  }
}

TEST(ChatPromptIds, PromptIdsOfAConversationAreTheOracleIds) {
  const auto cases = read_json("tests/fixtures/chat_templates/cases.json");
  const auto entries = read_json("tests/fixtures/chat_templates/smollm2_prompt_ids.json");
  int checked = 0;
  for (const auto& entry : entries) {
    if (!entry["add_generation_prompt"].get<bool>()) continue;  // prompt_ids always adds it
    std::vector<ChatMessage> messages;
    for (const auto& m : cases["conversations"].at(entry["conversation"].get<size_t>()))
      messages.push_back({m["role"], m["content"]});
    EXPECT_EQ(smollm2().format.prompt_ids(messages), entry["ids"].get<std::vector<int32_t>>()) << describe(entry);
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

// In ggml-vocab-smollm2.gguf, <|im_end|> is id 2 (token_type 3, control), what the
// template writes right after an assistant message, and tokenizer.ggml.eos_token_id is
// 2 as well: one stop token.
TEST(ChatPromptIds, StopsAtImEndWhichIsAlsoEos) {
  ASSERT_EQ(smollm2().tokenizer->token_text(2), "<|im_end|>");
  EXPECT_EQ(smollm2().format.stop_tokens(), (std::vector<int32_t>{2}));
}

}  // namespace
}  // namespace tessera::chat
