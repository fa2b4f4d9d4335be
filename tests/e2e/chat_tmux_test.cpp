// `tessera chat` in a real terminal: tmux runs it in a pane, send-keys types as a user
// would and capture-pane reads the screen. Three turns with SmolLM2-135M-Instruct (the
// later ones reuse the earlier ones' KV blocks: the -v lines count them), /save, /reset
// and /load, Ctrl-C stopping an answer without ending the program, the line editor's
// history, and /quit. The transcript is printed for the record.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <regex>
#include <thread>

#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A tmux server of its own (-L) running one command in one pane, kept on screen after
// the command ends (remain-on-exit) so its last words can be read.
class TmuxPane {
 public:
  explicit TmuxPane(const std::string& command) : socket_("tessera-chat-" + std::to_string(getpid())) {
    run("new-session -d -s chat -x 160 -y 50 " + shell_quote(command));
    run("set-option -t chat remain-on-exit on");
  }
  ~TmuxPane() { run_command("tmux -L " + socket_ + " kill-server"); }

  void type(const std::string& text) { run("send-keys -t chat -l " + shell_quote(text)); }
  void key(const std::string& name) { run("send-keys -t chat " + name); }
  void line(const std::string& text) {
    type(text);
    key("Enter");
  }
  // The whole pane with its scrollback.
  std::string screen() { return run_command("tmux -L " + socket_ + " capture-pane -p -t chat -S -2000").out; }
  bool dead() { return run_command("tmux -L " + socket_ + " display -p -t chat '#{pane_dead}'").out == "1\n"; }
  // Waits until `done(screen())` holds; false after `timeout`.
  bool wait(const std::function<bool(const std::string&)>& done, std::chrono::seconds timeout = 120s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      if (done(screen())) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  bool wait_for(const std::string& text, std::chrono::seconds timeout = 120s) {
    return wait([&](const std::string& s) { return s.find(text) != std::string::npos; }, timeout);
  }

 private:
  void run(const std::string& args) {
    const CommandResult r = run_command("tmux -L " + socket_ + " " + args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  std::string socket_;
};

bool have_tmux() { return run_command("tmux -V").exit_code == 0; }

// "turn N: prompt P tokens, C of them cached": {P, C}, or {-1, -1}.
std::pair<int, int> turn_tokens(const std::string& screen, int turn) {
  std::smatch m;
  const std::regex re("turn " + std::to_string(turn) + ": prompt ([0-9]+) tokens, ([0-9]+) of them cached");
  if (!std::regex_search(screen, m, re)) return {-1, -1};
  return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

std::string chat_command(const std::string& flags) {
  return "TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " + shell_quote(tessera_exe()) + " chat -m " +
         shell_quote(smollm2_path()) + " --temp 0 -v " + flags;
}

class ChatTmux : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it)";
    if (smollm2_path().empty()) GTEST_SKIP() << "SmolLM2-135M-Instruct.Q4_1.gguf is not fetched: run scripts/fetch-model.sh";
  }
};

TEST_F(ChatTmux, ThreeTurnsReuseTheConversationsCacheAndSurviveSaveResetLoad) {
  const std::string saved = temp_path("chat.json");
  TmuxPane pane(chat_command("-n 48"));
  ASSERT_TRUE(pane.wait_for("/help lists the commands")) << pane.screen();

  pane.line("What is the capital of France? Answer in one sentence.");
  ASSERT_TRUE(pane.wait_for("tessera: turn 1:")) << pane.screen();
  EXPECT_THAT(pane.screen(), HasSubstr("The capital of France is Paris."));

  pane.line("And the capital of Germany?");
  ASSERT_TRUE(pane.wait_for("tessera: turn 2:")) << pane.screen();
  const auto [prompt1, cached1] = turn_tokens(pane.screen(), 1);
  const auto [prompt2, cached2] = turn_tokens(pane.screen(), 2);
  EXPECT_EQ(cached1, 0);
  // The first turn's prompt and answer are whole 16-token blocks of the cache, but for
  // the last partial one.
  EXPECT_GE(cached2, prompt1 / 16 * 16) << pane.screen();
  EXPECT_LT(cached2, prompt2);

  pane.line("/save " + saved);
  ASSERT_TRUE(pane.wait_for("(saved 4 messages to " + saved + ")")) << pane.screen();
  pane.line("/reset");
  ASSERT_TRUE(pane.wait_for("(conversation cleared)")) << pane.screen();
  pane.line("/load " + saved);
  ASSERT_TRUE(pane.wait_for("(loaded 4 messages from " + saved + ")")) << pane.screen();

  pane.line("Which of the two is bigger?");
  ASSERT_TRUE(pane.wait_for("tessera: turn 3:")) << pane.screen();
  const auto [prompt3, cached3] = turn_tokens(pane.screen(), 3);
  EXPECT_GE(cached3, prompt2 / 16 * 16) << pane.screen();  // the loaded conversation is still cached

  pane.line("/quit");
  ASSERT_TRUE(pane.wait([&](const std::string&) { return pane.dead(); }, 30s)) << pane.screen();
  std::cout << "---- transcript ----\n" << pane.screen() << "--------------------\n";

  std::ifstream in(saved);
  std::stringstream json;
  json << in.rdbuf();
  EXPECT_THAT(json.str(), HasSubstr("\"content\": \"What is the capital of France? Answer in one sentence.\""));
  EXPECT_THAT(json.str(), HasSubstr("\"content\": \"The capital of France is Paris.\""));
  std::filesystem::remove(saved);
}

// Characters on screen after the last occurrence of `marker`.
size_t after(const std::string& screen, const std::string& marker) {
  const size_t at = screen.rfind(marker);
  return at == std::string::npos ? 0 : screen.size() - at - marker.size();
}

TEST_F(ChatTmux, CtrlCStopsTheAnswerNotTheProgramAndHistoryRecallsALine) {
  const std::string question = "Write a very long story about a dragon and a knight.";
  TmuxPane pane(chat_command("-n 2000"));
  ASSERT_TRUE(pane.wait_for("/help lists the commands")) << pane.screen();
  pane.line(question);
  // Some of the answer, then Ctrl-C.
  ASSERT_TRUE(pane.wait([&](const std::string& s) { return after(s, question) > 300; }, 60s)) << pane.screen();
  pane.key("C-c");
  ASSERT_TRUE(pane.wait_for("tessera: turn 1:")) << pane.screen();
  EXPECT_THAT(pane.screen(), HasSubstr("stop: cancelled"));
  EXPECT_FALSE(pane.dead());

  // The up arrow brings earlier lines back: twice up is the question again.
  pane.line("/system Be brief.");
  ASSERT_TRUE(pane.wait_for("(system message set)")) << pane.screen();
  pane.key("Up");
  pane.key("Up");
  pane.key("Enter");
  ASSERT_TRUE(pane.wait([&](const std::string& s) { return after(s, question) > 100; }, 60s)) << pane.screen();
  pane.key("C-c");
  ASSERT_TRUE(pane.wait_for("tessera: turn 2:")) << pane.screen();

  pane.type("half a line");
  pane.key("C-c");  // at the prompt: the line is dropped, the program stays
  pane.line("/help");
  ASSERT_TRUE(pane.wait_for("/reload NAME")) << pane.screen();
  EXPECT_FALSE(pane.dead());
  pane.key("C-d");  // end of input ends the chat
  ASSERT_TRUE(pane.wait([&](const std::string&) { return pane.dead(); }, 30s)) << pane.screen();
  std::cout << "---- transcript ----\n" << pane.screen() << "--------------------\n";
}

// /backend and /reload, on stories260K with the built-in ChatML template (no download).
TEST(ChatTmuxCommands, BackendMovesTheConversationAndReloadReopensThePlugin) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it)";
  const bool vulkan = run_command("TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " +
                                  shell_quote(tessera_exe()) + " backends")
                          .out.find("device vulkan:0") != std::string::npos;
  TmuxPane pane("MESA_SHADER_CACHE_DIR=" + shell_quote(std::string(TESSERA_BINARY_DIR) + "/mesa-shader-cache") +
                " TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " + shell_quote(tessera_exe()) +
                " chat -m " + shell_quote(testdata_path("stories260K/stories260K.gguf")) +
                " --chat-template chatml --temp 0 -n 24 -v --ctx 1024");
  ASSERT_TRUE(pane.wait_for("/help lists the commands")) << pane.screen();
  pane.line("Once upon a time");
  ASSERT_TRUE(pane.wait_for("tessera: turn 1:")) << pane.screen();

  pane.line("/backend cpu:0");  // opens the device again: a real move
  ASSERT_TRUE(pane.wait_for("(moved from cpu:0 to cpu:0 in ")) << pane.screen();
  pane.line("/backend nosuch");
  ASSERT_TRUE(pane.wait_for("/backend: no backend named 'nosuch'")) << pane.screen();
  pane.line("The cat");
  ASSERT_TRUE(pane.wait_for("tessera: turn 2:")) << pane.screen();
  EXPECT_GT(turn_tokens(pane.screen(), 2).second, 0) << "the move kept the cached blocks\n" << pane.screen();

  pane.line("/reload cpu");
  ASSERT_TRUE(pane.wait_for("(reloaded plugin 'cpu' from " + plugin_dir() + "/libtessera_cpu.so in ")) << pane.screen();
  pane.line("The dog");
  ASSERT_TRUE(pane.wait_for("tessera: turn 3:")) << pane.screen();
  EXPECT_EQ(turn_tokens(pane.screen(), 3).second, 0) << "a reload starts a new cache\n" << pane.screen();

  if (vulkan) {
    pane.line("/backend vulkan");
    ASSERT_TRUE(pane.wait_for("(moved from cpu:0 to vulkan:0 in ")) << pane.screen();
    pane.line("The end");
    ASSERT_TRUE(pane.wait_for("tessera: turn 4:", 300s)) << pane.screen();
    EXPECT_GT(turn_tokens(pane.screen(), 4).second, 0) << pane.screen();
  }
  pane.line("/reload nosuch");
  ASSERT_TRUE(pane.wait_for("/reload: no plugin named 'nosuch' is loaded")) << pane.screen();
  pane.line("/bogus");
  ASSERT_TRUE(pane.wait_for("unknown command '/bogus'; /help lists them")) << pane.screen();
  pane.line("/load /nonexistent.json");
  ASSERT_TRUE(pane.wait_for("/load: /nonexistent.json: cannot open: No such file or directory")) << pane.screen();
  pane.line("/quit");
  ASSERT_TRUE(pane.wait([&](const std::string&) { return pane.dead(); }, 30s)) << pane.screen();
}

}  // namespace
}  // namespace tessera::test
