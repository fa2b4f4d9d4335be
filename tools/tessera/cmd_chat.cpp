// tessera chat: a conversation with an instruct model in the terminal, through its chat
// template, streaming each answer and keeping the conversation's KV cache between
// turns (see chat_session.h). With piped input, the whole input is one question: it is
// answered once and the command ends.
#include <signal.h>

#include <atomic>
#include <cstdio>

#include "core/util/error.h"
#include "tools/tessera/chat_flags.h"
#include "tools/tessera/chat_session.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/engine_flags.h"
#include "tools/tessera/line_input.h"
#include "tools/tessera/runtime_options.h"
#include "tools/tessera/sampling_flags.h"

namespace tessera::cli {
namespace {

constexpr size_t kMaxPipedBytes = size_t{16} << 20;

// Ctrl-C during an answer stops the answer, not the program.
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

struct ChatCommandFlags {
  RuntimeOptions runtime;
  EngineFlags engine;
  SamplingFlags sampling;
  ChatFlags chat;
  int64_t n_predict = 1024;
  bool verbose = false;
};

OptionTable chat_options(ChatCommandFlags& f) {
  OptionTable t("chat", "-m MODEL [--system TEXT] [options]",
                "Talks with an instruct model through its chat template: type a message, the answer\n"
                "streams back; /help lists the commands. With piped input (echo question | tessera chat\n"
                "-m MODEL) the whole input is one message, answered once.");
  f.runtime.add_to(t);
  f.engine.add_to(t);
  f.sampling.add_to(t);
  f.chat.add_to(t);
  t.integer("-n, --n-predict", "N", "new tokens per answer at most", &f.n_predict, 1, 1 << 24)
      .flag("-v, --verbose", "after each answer, say on stderr how many prompt tokens the cache held, how many "
            "were computed, and the speed", &f.verbose);
  return t;
}

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read returns, so the prompt can start over
  sigaction(SIGINT, &sa, nullptr);
}

}  // namespace

int run_chat(const Args& args) {
  ChatCommandFlags f;
  OptionTable table = chat_options(f);
  const auto positional = table.parse(args);
  if (table.help_requested()) {
    std::printf("%s", table.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  ChatSessionOptions options;
  options.sampling = f.sampling.params();
  options.max_answer_tokens = static_cast<int32_t>(f.n_predict);
  options.verbose = f.verbose;

  LineInput input;
  // A piped question is read before the model loads: nothing to wait for after that.
  std::string piped;
  if (!input.interactive()) {
    piped = read_all_stdin(kMaxPipedBytes);
    while (!piped.empty() && (piped.back() == '\n' || piped.back() == '\r')) piped.pop_back();
    if (piped.empty()) throw UsageError{"no message on standard input"};
  }

  Runtime rt = load_runtime(f.runtime);
  const chat::ChatFormat format = chat_format_of(*rt.model, f.chat.template_name);
  const int64_t model_ctx = rt.model->compiled().n_ctx > 0 ? rt.model->compiled().n_ctx : 2048;
  const int64_t n_ctx = f.runtime.ctx > 0 ? f.runtime.ctx : model_ctx;
  // One conversation: room for a whole context, plus a block for the prefix cache to
  // keep the last turn's partial block while the next one starts.
  options.engine = f.engine.engine_options(f.runtime, n_ctx + f.runtime.kv_block);
  options.engine.n_ctx = n_ctx;
  std::fprintf(stderr, "tessera: chat template %s\n", format.template_name().c_str());
  ChatSession session(rt, f.runtime, format, options, f.chat.system);
  log_placement(session.engine().executor());

  if (!input.interactive()) {
    const TurnReport r = session.answer(piped, stdout, nullptr);
    if (!r.result) throw Error(r.error);
    return 0;
  }
  install_interrupt_handler();
  std::fprintf(stderr, "tessera: type a message; /help lists the commands, Ctrl-D or /quit ends\n");
  while (true) {
    g_interrupted.store(false);
    const std::optional<std::string> line = input.read("> ");
    if (!line) {
      if (g_interrupted.load()) {  // Ctrl-C at the prompt: a fresh line
        std::fputc('\n', stdout);
        continue;
      }
      std::fputc('\n', stdout);
      break;
    }
    if (line->empty()) continue;
    if (line->front() == '/') {
      if (!session.command(*line, stdout, stderr)) break;
      continue;
    }
    const TurnReport r = session.answer(*line, stdout, &g_interrupted);
    if (!r.result) std::fprintf(stderr, "tessera: %s\n", r.error.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
