// A conversation's format: the built-in templates' renderings, the tokens that end an
// answer (found in what each template writes after one), control tokens parsed in a
// rendered prompt and the BOS rule, where a model's template comes from (GGUF metadata,
// a Hugging Face folder's chat_template.jinja or tokenizer_config.json), and the
// conversation files of /save and /load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/chat/chat_format.h"
#include "core/chat/conversation_json.h"
#include "core/chat/template_parser.h"
#include "core/chat/template_source.h"
#include "core/util/error.h"
#include "dsl/fake_weight_file.h"

namespace tessera::chat {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A vocabulary of control tokens (ids 0..9) and one token per byte (100 + byte): enough
// to see which texts a format parses as control tokens.
class FakeTokenizer : public Tokenizer {
 public:
  explicit FakeTokenizer(bool add_bos = false) : add_bos_(add_bos) {
    texts_ = {"<s>", "</s>", "<|im_start|>", "<|im_end|>", "<|eot_id|>", "<|start_header_id|>",
              "<|end_header_id|>", "<start_of_turn>", "<end_of_turn>", "<|end|>"};
    texts_.resize(100);
    for (int b = 0; b < 256; ++b) texts_.push_back(std::string(1, static_cast<char>(b)));
  }
  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override {
    std::vector<int32_t> ids;
    if (add_bos) ids.push_back(0);
    for (unsigned char c : text) ids.push_back(100 + c);
    return ids;
  }
  std::string decode(const std::vector<int32_t>&) const override { return ""; }
  std::string token_to_piece(int32_t, int32_t) const override { return ""; }
  int32_t n_vocab() const override { return static_cast<int32_t>(texts_.size()); }
  int32_t bos() const override { return 0; }
  int32_t eos() const override { return 1; }
  bool add_bos() const override { return add_bos_; }
  bool is_control(int32_t id) const override { return id >= 0 && id < 10; }
  bool ends_text(int32_t id) const override { return id == 1; }
  const std::string& token_text(int32_t id) const override { return texts_.at(static_cast<size_t>(id)); }
  int32_t find_token(std::string_view) const override { return -1; }

 private:
  bool add_bos_;
  std::vector<std::string> texts_;
};

const std::vector<ChatMessage> kConversation = {
    {"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello."}, {"user", "Bye"}};

std::string render_builtin(const std::string& name, const std::vector<ChatMessage>& messages = kConversation) {
  const FakeTokenizer tok;
  return ChatFormat(*builtin_template(name), tok).render(messages, true);
}

TEST(BuiltinTemplates, ChatmlWritesEachMessageBetweenImMarks) {
  EXPECT_EQ(render_builtin("chatml"),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
            "Hello.<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n");
}

TEST(BuiltinTemplates, Llama3WritesHeadersAndEotIds) {
  EXPECT_EQ(render_builtin("llama3"),
            "<s><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user"
            "<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant"
            "<|end_header_id|>\n\n");
}

TEST(BuiltinTemplates, Llama2PutsTheSystemPromptInTheFirstInst) {
  EXPECT_EQ(render_builtin("llama2"),
            "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello. </s><s>[INST] Bye [/INST]");
}

TEST(BuiltinTemplates, MistralOpensTheFirstTurnWithTheSystemPrompt) {
  EXPECT_EQ(render_builtin("mistral"), "<s>[INST] Be brief.\n\nHi [/INST] Hello.</s>[INST] Bye [/INST]");
}

TEST(BuiltinTemplates, GemmaNamesTheAssistantModel) {
  EXPECT_EQ(render_builtin("gemma"),
            "<s><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello.<end_of_turn>\n"
            "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n");
}

TEST(BuiltinTemplates, Phi3WritesRoleTagsAndEnds) {
  EXPECT_EQ(render_builtin("phi3"),
            "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello.<|end|>\n<|user|>\nBye<|end|>\n"
            "<|assistant|>\n");
}

TEST(BuiltinTemplates, Llama2RefusesTurnsThatDoNotAlternate) {
  try {
    render_builtin("llama2", {{"user", "a"}, {"user", "b"}});
    ADD_FAILURE() << "rendered";
  } catch (const TemplateError& e) {
    EXPECT_THAT(e.what(), HasSubstr("llama2 (built-in):"));
    EXPECT_THAT(e.what(), HasSubstr("llama2 conversations alternate user and assistant turns"));
  }
}

TEST(ChatFormat, StopTokenIsWhatTheTemplateWritesAfterAnAnswer) {
  const FakeTokenizer tok;
  const auto stops = [&](const std::string& name) { return ChatFormat(*builtin_template(name), tok).stop_tokens(); };
  EXPECT_THAT(stops("chatml"), ElementsAre(3, 1));  // <|im_end|>, then EOS
  EXPECT_THAT(stops("llama3"), ElementsAre(4, 1));  // <|eot_id|>
  EXPECT_THAT(stops("gemma"), ElementsAre(8, 1));   // <end_of_turn>
  EXPECT_THAT(stops("phi3"), ElementsAre(9, 1));    // <|end|>
  EXPECT_THAT(stops("llama2"), ElementsAre(1));     // " </s>": EOS itself
  EXPECT_THAT(stops("mistral"), ElementsAre(1));
}

TEST(ChatFormat, ParsesControlTokensAndEncodesTheTextBetween) {
  const FakeTokenizer tok;
  const ChatFormat f(*builtin_template("chatml"), tok);
  EXPECT_THAT(f.encode("<|im_start|>u\nA<|im_end|>"), ElementsAre(2, 100 + 'u', 100 + '\n', 100 + 'A', 3));
}

TEST(ChatFormat, AddsBosOnlyWhenTheTemplateDidNot) {
  const FakeTokenizer tok(/*add_bos=*/true);
  const ChatFormat f(*builtin_template("llama2"), tok);
  EXPECT_THAT(f.encode("<s>[I"), ElementsAre(0, 100 + '[', 100 + 'I'));
  EXPECT_THAT(f.encode("x"), ElementsAre(0, 100 + 'x'));
}

TEST(ChatFormat, TemplateThatDoesNotParseNamesItsPosition) {
  const FakeTokenizer tok;
  try {
    ChatFormat(TemplateSource{"{% if x %}open", "mine.jinja"}, tok);
    ADD_FAILURE() << "parsed";
  } catch (const TemplateError& e) {
    EXPECT_THAT(e.what(), HasSubstr("mine.jinja:1:"));
    EXPECT_THAT(e.what(), HasSubstr("endif"));
  }
}

// A scratch folder standing for a Hugging Face model folder.
class Folder {
 public:
  Folder() : path_(std::filesystem::temp_directory_path() / ("tessera_chat_" + std::to_string(getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~Folder() { std::filesystem::remove_all(path_); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(TemplateSource, GgufCarriesItInItsMetadata) {
  test::FakeWeightFile gguf("m.gguf");
  gguf.set_string("tokenizer.chat_template", "{{ messages[0]['content'] }}");
  const auto t = model_chat_template(gguf);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->text, "{{ messages[0]['content'] }}");
  EXPECT_EQ(t->name, "m.gguf: tokenizer.chat_template");
  EXPECT_FALSE(model_chat_template(test::FakeWeightFile("bare.gguf")).has_value());
}

TEST(TemplateSource, FolderReadsTokenizerConfigWithItsDefaultEntry) {
  const Folder dir;
  dir.write("tokenizer_config.json",
            R"({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
                "bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>"})");
  const test::FakeWeightFile folder(dir.path(), "hf");
  ASSERT_TRUE(model_chat_template(folder).has_value());
  EXPECT_EQ(model_chat_template(folder)->text, "D");
  const SpecialTokenTexts texts = config_token_texts(folder);
  EXPECT_EQ(texts.bos, "<s>");
  EXPECT_EQ(texts.eos, "</s>");
  dir.write("chat_template.jinja", "J");  // the file wins over the config's entry
  EXPECT_EQ(model_chat_template(folder)->text, "J");
}

TEST(TemplateSource, FolderWithBrokenConfigIsAnErrorNamingTheFile) {
  const Folder dir;
  dir.write("tokenizer_config.json", R"({"chat_template": 7})");
  const test::FakeWeightFile folder(dir.path(), "hf");
  try {
    model_chat_template(folder);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + "/tokenizer_config.json: chat_template must be a string or a list "
                                                   "of {\"name\", \"template\"} objects");
  }
  dir.write("tokenizer_config.json", "{not json");
  EXPECT_THROW(model_chat_template(folder), Error);
}

TEST(TemplateSource, ChosenTemplateIsABuiltinOrAFile) {
  EXPECT_EQ(chosen_template("chatml").name, "chatml (built-in)");
  const Folder dir;
  dir.write("t.jinja", "{{ 'x' }}");
  EXPECT_EQ(chosen_template(dir.path() + "/t.jinja").text, "{{ 'x' }}");
  try {
    chosen_template("chatmlx");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--chat-template 'chatmlx' is neither a built-in template (chatml, llama2, llama3, gemma, mistral, "
              "phi3) nor a file");
  }
}

TEST(ConversationJson, RoundTripsMessagesAndReadsABareList) {
  const std::vector<ChatMessage> messages = {{"system", "S \"q\""}, {"user", "ünïcode\n"}, {"assistant", ""}};
  const std::vector<ChatMessage> back = conversation_from_json(conversation_to_json(messages), "c.json");
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].role, messages[i].role);
    EXPECT_EQ(back[i].content, messages[i].content);
  }
  EXPECT_EQ(conversation_from_json(R"([{"role": "user", "content": "x"}])", "l.json").size(), 1u);
}

TEST(ConversationJson, RefusesWhatIsNotAConversation) {
  const auto message_of = [](const std::string& text) {
    try {
      conversation_from_json(text, "c.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(message_of("{"), HasSubstr("c.json: not valid JSON: "));
  EXPECT_EQ(message_of(R"({"turns": []})"), "c.json: no \"messages\" list");
  EXPECT_EQ(message_of(R"({"messages": [{"role": "user"}]})"), "c.json: message 0 needs a string \"content\"");
  EXPECT_EQ(message_of(R"([{"role": 1, "content": "x"}])"), "c.json: message 0 needs a string \"role\"");
  EXPECT_EQ(message_of(R"({"messages": 3})"), "c.json: \"messages\" must be a list of {\"role\", \"content\"} objects");
}

TEST(ConversationJson, CutUtf8IsWrittenReplacedNotRaw) {
  const std::string json = conversation_to_json({{"assistant", std::string("ab\xE2\x82", 4)}});
  EXPECT_THAT(json, HasSubstr("ab\xEF\xBF\xBD"));  // U+FFFD
}

}  // namespace
}  // namespace tessera::chat
