#include "tools/tessera/chat_session.h"

#include <chrono>
#include <cstdio>

#include "core/chat/conversation_json.h"
#include "core/chat/template_parser.h"
#include "core/util/error.h"
#include "core/util/format_bytes.h"

namespace tessera::cli {
namespace {

constexpr const char* kHelp =
    "commands:\n"
    "  /reset          forget the conversation (the system message stays)\n"
    "  /system TEXT    set the system message (no TEXT: remove it)\n"
    "  /save FILE      write the conversation as JSON\n"
    "  /load FILE      read a conversation written by /save\n"
    "  /backend NAME   move the conversation to another backend (e.g. vulkan, cpu:0)\n"
    "  /reload NAME    unload the plugin NAME and load its file again (rebuilt since)\n"
    "  /quit, /exit    leave (so does end of input)\n"
    "Ctrl-C stops an answer; a line ending in \\ continues on the next.\n";

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ChatSession::ChatSession(Runtime& rt, const RuntimeOptions& runtime_options, const chat::ChatFormat& format,
                         ChatSessionOptions options, std::string system)
    : rt_(rt), runtime_options_(runtime_options), backend_spec_(runtime_options.backend), format_(format),
      options_(std::move(options)) {
  set_system(system);
  engine_ = std::make_unique<Engine>(*rt_.model, rt_.backend, options_.engine);
}

void ChatSession::set_system(const std::string& text) {
  if (!messages_.empty() && messages_.front().role == "system") messages_.erase(messages_.begin());
  if (!text.empty()) messages_.insert(messages_.begin(), {"system", text});
}

TurnReport ChatSession::answer(const std::string& user, std::FILE* out, const std::atomic<bool>* interrupted) {
  if (!engine_) return {nullptr, "no backend is open (the last /reload failed); /backend NAME opens one"};
  std::vector<chat::ChatMessage> next = messages_;
  next.push_back({"user", user});
  Request request;
  try {
    request.prompt_ids = format_.prompt_ids(next);
  } catch (const chat::TemplateError& e) {
    return {nullptr, e.what()};
  }
  request.sampling = options_.sampling;
  request.max_tokens = options_.max_answer_tokens;
  request.stop.stop_token_ids = format_.stop_tokens();
  std::shared_ptr<const RequestResult> result;
  request.on_event = [out, &result](const RequestEvent& e) {
    std::fwrite(e.text.data(), 1, e.text.size(), out);
    std::fflush(out);
    if (e.finished()) result = e.result;
  };
  RequestId id = -1;
  try {
    id = engine_->submit(std::move(request));
  } catch (const Error& e) {  // longer than the context, say
    return {nullptr, std::string(e.what()) + "; /reset starts the conversation afresh"};
  }
  bool cancelled = false;
  while (!result) {
    if (!cancelled && interrupted && interrupted->load()) {
      engine_->cancel(id);
      cancelled = true;
    }
    if (!engine_->step() && !result) break;
  }
  std::fputc('\n', out);
  std::fflush(out);
  if (!result) return {nullptr, "the engine stopped without finishing the answer"};
  if (result->finish == FinishReason::Error) return {nullptr, "the answer failed: " + result->error};
  messages_ = std::move(next);
  messages_.push_back({"assistant", result->text});
  ++turns_;
  if (options_.verbose) print_turn(*result);
  return {result, ""};
}

void ChatSession::print_turn(const RequestResult& r) const {
  const auto prompt = static_cast<long long>(r.prompt_ids.size());
  const double decode_ms = r.total_ms - r.ttft_ms;
  const double tps = decode_ms > 0 && r.generated_ids.size() > 1
                         ? static_cast<double>(r.generated_ids.size() - 1) * 1e3 / decode_ms
                         : 0.0;
  std::fprintf(stderr,
               "tessera: turn %d: prompt %lld tokens, %lld of them cached, %lld computed; answer %zu tokens, first "
               "after %.1f ms, %.1f tok/s; stop: %s\n",
               turns_, prompt, static_cast<long long>(r.cached_prompt_tokens),
               prompt - static_cast<long long>(r.cached_prompt_tokens), r.generated_ids.size(), r.ttft_ms, tps,
               std::string(finish_reason_name(r.finish)).c_str());
}

bool ChatSession::command(const std::string& line, std::FILE* out, std::FILE* err) {
  const size_t space = line.find(' ');
  const std::string name = line.substr(0, space);
  std::string arg;
  if (const size_t first = line.find_first_not_of(' ', space == std::string::npos ? line.size() : space);
      first != std::string::npos) {
    arg = line.substr(first);
  }
  try {
    if (name == "/quit" || name == "/exit") return false;
    if (name == "/help") {
      std::fputs(kHelp, out);
    } else if (name == "/reset") {
      const std::string system = !messages_.empty() && messages_.front().role == "system" ? messages_.front().content : "";
      messages_.clear();
      set_system(system);
      std::fputs("(conversation cleared)\n", out);
    } else if (name == "/system") {
      set_system(arg);
      std::fputs(arg.empty() ? "(system message removed)\n" : "(system message set)\n", out);
    } else if (name == "/save" || name == "/load") {
      if (arg.empty()) throw Error(name + " needs a file name");
      if (name == "/save") {
        chat::write_conversation(arg, messages_);
        std::fprintf(out, "(saved %zu messages to %s)\n", messages_.size(), arg.c_str());
      } else {
        messages_ = chat::read_conversation(arg);
        std::fprintf(out, "(loaded %zu messages from %s)\n", messages_.size(), arg.c_str());
      }
    } else if (name == "/backend") {
      if (arg.empty()) throw Error("/backend needs a backend name, e.g. /backend vulkan");
      move_to(arg, out);
    } else if (name == "/reload") {
      if (arg.empty()) throw Error("/reload needs a plugin name, e.g. /reload cpu");
      reload(arg, out);
    } else {
      std::fprintf(err, "unknown command '%s'; /help lists them\n", name.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(err, "%s: %s\n", name.c_str(), e.what());
  }
  std::fflush(out);
  return true;
}

void ChatSession::move_to(const std::string& spec, std::FILE* out) {
  Backend target = open_cli_backend(*rt_.host, spec, static_cast<int32_t>(runtime_options_.threads));
  attach_fallback(target, *rt_.host, rt_.model->compiled().graph, runtime_options_);
  target.reference = rt_.backend.reference;
  if (!engine_) {  // after a failed /reload: start afresh there
    rt_.backend = std::move(target);
    backend_spec_ = spec;
    engine_ = std::make_unique<Engine>(*rt_.model, rt_.backend, options_.engine);
    std::fprintf(out, "(opened %s)\n", engine_->executor().device().name().c_str());
    return;
  }
  const MigrationReport r = engine_->migrate(target);  // throws, changing nothing, when refused
  rt_.backend = std::move(target);
  backend_spec_ = spec;
  std::fprintf(out, "(moved from %s to %s in %.1f ms: %lld KV block(s), %s, copied)\n", r.from.c_str(), r.to.c_str(),
               r.total_ms, static_cast<long long>(r.kv_blocks), format_bytes(static_cast<double>(r.kv_bytes)).c_str());
  log_placement(engine_->executor());
}

// The engine and the backends hold the plugins' devices: they go first, the plugin is
// reloaded, and the backend is opened again; the next turn recomputes the conversation.
void ChatSession::reload(const std::string& name, std::FILE* out) {
  if (!rt_.host->find(name)) throw Error("no plugin named '" + name + "' is loaded");
  const auto t0 = std::chrono::steady_clock::now();
  engine_.reset();
  rt_.backend = Backend{};
  std::string problem;
  std::string file;
  try {
    file = rt_.host->reload(name)->path().string();
  } catch (const Error& e) {
    problem = e.what();
  }
  rt_.backend = open_cli_backend(*rt_.host, backend_spec_, static_cast<int32_t>(runtime_options_.threads));
  attach_fallback(rt_.backend, *rt_.host, rt_.model->compiled().graph, runtime_options_);
  engine_ = std::make_unique<Engine>(*rt_.model, rt_.backend, options_.engine);
  if (!problem.empty()) throw Error(problem);
  std::fprintf(out, "(reloaded plugin '%s' from %s in %.1f ms; the next answer recomputes the conversation)\n",
               name.c_str(), file.c_str(), ms_since(t0));
}

}  // namespace tessera::cli
