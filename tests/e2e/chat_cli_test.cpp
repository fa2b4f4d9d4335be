// `tessera chat` with piped input and `tessera generate --chat`: SmolLM2-135M-Instruct
// answers through its own chat template and stops at the end of its turn; models
// without a template, unknown templates and broken template files are clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/golden.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }
std::string stories() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }
const char* kQuestion = "What is the capital of France? Answer in one sentence.";

#define REQUIRE_SMOLLM2()                                                                        \
  if (smollm2_path().empty()) GTEST_SKIP() << "SmolLM2-135M-Instruct.Q4_1.gguf is not fetched: " \
                                              "run scripts/fetch-model.sh"

TEST(ChatCli, PipedQuestionIsAnsweredOnceThroughTheModelsTemplate) {
  REQUIRE_SMOLLM2();
  const CommandResult r = run_command("printf %s " + shell_quote(kQuestion) + " | " +
                                      tessera("chat -m " + shell_quote(smollm2_path()) + " --temp 0 -v"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "The capital of France is Paris.\n");
  EXPECT_THAT(r.err, HasSubstr("chat template " + smollm2_path() + ": tokenizer.chat_template"));
  EXPECT_THAT(r.err, HasSubstr("stop: eos"));  // <|im_end|>, which this vocabulary calls its EOS
}

TEST(ChatCli, GenerateChatAppliesTheTemplateToEachPrompt) {
  REQUIRE_SMOLLM2();
  const CommandResult r = run_command(tessera("generate -m " + shell_quote(smollm2_path()) + " --chat -p " +
                                              shell_quote(kQuestion) + " --temp 0 -n 64 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_text(r.out, "text"), "The capital of France is Paris.");
  EXPECT_EQ(json_text(r.out, "stop_reason"), "eos");
  // The prompt starts as the template writes it: <|im_start|> (id 1), "system", "\n";
  // it ends with <|im_start|> "assistant" "\n".
  const std::vector<int32_t> ids = json_ids(r.out, "prompt_ids");
  ASSERT_GE(ids.size(), 6u);
  EXPECT_EQ(std::vector<int32_t>(ids.begin(), ids.begin() + 3), (std::vector<int32_t>{1, 9690, 198}));
  EXPECT_EQ(std::vector<int32_t>(ids.end() - 4, ids.end()), (std::vector<int32_t>{1, 520, 9531, 198}));
}

TEST(ChatCli, SystemMessageReplacesTheTemplatesDefault) {
  REQUIRE_SMOLLM2();
  const CommandResult r = run_command(
      tessera("generate -m " + shell_quote(smollm2_path()) + " --chat --system 'You answer in French.' -p " +
              shell_quote(kQuestion) + " --temp 0 -n 32 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(json_text(r.out, "text"), "The capital of France is Paris.");
}

TEST(ChatCli, ModelWithoutATemplateNeedsOne) {
  const CommandResult r = run_command("echo hi | " + tessera("chat -m " + stories()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("stories260K.gguf carries no chat template; pass --chat-template with a built-in "
                               "one (chatml, llama2, llama3, gemma, mistral, phi3) or a Jinja file"));
}

TEST(ChatCli, BuiltinTemplateGivesAModelWithoutOneAConversation) {
  const CommandResult r = run_command("echo 'Once upon a time' | " +
                                      tessera("chat -m " + stories() + " --chat-template chatml --temp 0 -n 16"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("chat template chatml (built-in)"));
  EXPECT_FALSE(r.out.empty());
}

TEST(ChatCli, UnknownTemplateNameIsAnError) {
  const CommandResult r = run_command("echo hi | " + tessera("chat -m " + stories() + " --chat-template chatmx"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--chat-template 'chatmx' is neither a built-in template"));
}

TEST(ChatCli, TemplateFileThatDoesNotParseNamesItsPosition) {
  const std::string file = temp_path("broken.jinja");
  std::ofstream(file) << "{% for m in messages %}{{ m['content'] }}\n";
  const CommandResult r =
      run_command("echo hi | " + tessera("chat -m " + stories() + " --chat-template " + shell_quote(file)));
  std::filesystem::remove(file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("the chat template does not parse: " + file + ":"));
  EXPECT_THAT(r.err, HasSubstr("endfor"));
}

TEST(ChatCli, EmptyPipedInputIsAUsageError) {
  const CommandResult r = run_command("printf '' | " + tessera("chat -m " + stories() + " --chat-template chatml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no message on standard input"));
}

TEST(ChatCli, SystemWithoutChatIsAUsageError) {
  const CommandResult r = run_command(tessera("generate -m " + stories() + " -p hi --system S"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--chat-template and --system need --chat"));
}

}  // namespace
}  // namespace tessera::test
