// tessera serve: an OpenAI-compatible HTTP server over the batching engine
// (POST /v1/chat/completions and /v1/completions, GET /v1/models, /health, /metrics).
// This file is the command line and the wiring; the server lives in serve/.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/engine/engine.h"
#include "core/util/error.h"
#include "core/util/format_bytes.h"
#include "tools/tessera/chat_flags.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/engine_flags.h"
#include "tools/tessera/runtime_options.h"
#include "tools/tessera/serve/engine_loop.h"
#include "tools/tessera/serve/http_server.h"
#include "tools/tessera/serve/serve_metrics.h"
#include "tools/tessera/serve/served_model.h"
#include "tools/tessera/serve/shutdown_signals.h"

namespace tessera::cli {
namespace {

struct ServeFlags {
  RuntimeOptions runtime;
  EngineFlags engine;
  std::string host = "127.0.0.1";
  int64_t port = 8080;
  std::string api_key;
  std::string alias;
  std::string max_body = "8M";
  std::string chat_template;
  int64_t http_threads = 128;
};

OptionTable serve_options(ServeFlags& f) {
  OptionTable t("serve", "-m MODEL [--host ADDR] [--port N] [options]",
                "Serves the model over HTTP with OpenAI's API: POST /v1/chat/completions and /v1/completions\n"
                "(streaming with \"stream\": true), GET /v1/models, /health and /metrics (Prometheus). Requests\n"
                "run together through the batching engine. SIGINT or SIGTERM stops it.");
  f.runtime.add_to(t);
  f.engine.add_to(t);
  t.text("--host", "ADDR", "address to listen on (0.0.0.0: every interface)", &f.host)
      .integer("--port", "N", "port to listen on; 0 = any free port (printed)", &f.port, 0, 65535)
      .text("--api-key", "KEY", "require 'Authorization: Bearer KEY' on every route but /health", &f.api_key,
            "TESSERA_API_KEY")
      .text("--alias", "NAME", "the model's name in the API; default: the weights' file name without extension",
            &f.alias)
      .text("--max-body", "SIZE", "largest request body accepted (8M, 64K, ...); larger ones get 413", &f.max_body)
      .text("--chat-template", "NAME|FILE", "chat template instead of the model's: a built-in one or a Jinja file",
            &f.chat_template)
      .integer("--http-threads", "N", "connections served at once (each streaming client holds one)", &f.http_threads,
               1, 4096);
  return t;
}

size_t parse_max_body(const std::string& text) {
  KvBudget size;
  try {
    size = parse_kv_budget(text);
  } catch (const Error&) {
    throw UsageError{"--max-body takes a size such as 8M, 512K or 1048576, got '" + text + "'"};
  }
  if (size.kind != KvBudget::Kind::Bytes) {
    throw UsageError{"--max-body takes a size such as 8M, 512K or 1048576, got '" + text + "'"};
  }
  return static_cast<size_t>(size.value);
}

std::string model_id(const ServeFlags& f) {
  if (!f.alias.empty()) return f.alias;
  std::filesystem::path p = std::filesystem::path(f.runtime.model).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // a folder given with a trailing '/'
  return p.stem().string();
}

// Without --kv-mem: room for --max-batch full contexts, at most a quarter of the
// device's memory, and never less than one full context.
EngineOptions serve_engine_options(const ServeFlags& f, const Runtime& rt, int64_t n_ctx) {
  int64_t tokens = f.engine.max_batch * n_ctx;
  const uint64_t per_token = rt.model->compiled().graph.kv_bytes_per_token();
  const uint64_t memory = rt.backend.device->info().memory_bytes;
  if (per_token > 0 && memory > 0) tokens = std::min<int64_t>(tokens, static_cast<int64_t>(memory / 4 / per_token));
  EngineOptions o = f.engine.engine_options(f.runtime, std::max(tokens, n_ctx));
  o.n_ctx = n_ctx;
  return o;
}

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int run_serve(const Args& args) {
  ServeFlags f;
  OptionTable table = serve_options(f);
  const auto positional = table.parse(args);
  if (table.help_requested()) {
    std::printf("%s", table.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  if (f.runtime.model.empty()) throw UsageError{"no model given: pass -m MODEL"};
  serve::HttpOptions http{f.host, static_cast<int>(f.port), f.api_key, parse_max_body(f.max_body),
                          static_cast<int>(f.http_threads)};

  serve::ShutdownSignals signals;  // before any thread starts: they all inherit the blocked signals
  Runtime rt = load_runtime(f.runtime);
  const int64_t model_ctx = rt.model->compiled().n_ctx > 0 ? rt.model->compiled().n_ctx : 2048;
  const int64_t n_ctx = f.runtime.ctx > 0 ? f.runtime.ctx : model_ctx;
  Engine engine(*rt.model, rt.backend, serve_engine_options(f, rt, n_ctx));
  log_placement(engine.executor());

  // A sequence can grow no longer than the context, nor than the whole KV cache.
  const KvCacheConfig& kv = engine.kv_cache().config();
  const int64_t longest = std::min<int64_t>(n_ctx, kv.n_blocks * kv.block_size);
  serve::ServedModel model{model_id(f), unix_seconds(), &rt.model->tokenizer(), nullptr, "", longest};
  std::optional<chat::ChatFormat> format;
  try {
    format.emplace(chat_format_of(*rt.model, f.chat_template));
    model.chat_format = &*format;
    std::fprintf(stderr, "tessera serve: chat template %s\n", format->template_name().c_str());
  } catch (const Error& e) {
    if (!f.chat_template.empty()) throw;
    model.no_chat_reason = std::string(e.what()) + " (start the server with --chat-template for chat completions)";
    std::fprintf(stderr, "tessera serve: warning: no chat template, /v1/chat/completions answers 400: %s\n", e.what());
  }

  serve::ServeMetrics metrics;
  serve::EngineLoop loop(engine, metrics);
  serve::HttpServer server(model, loop, metrics, http);
  const int port = server.bind();
  std::fprintf(stderr,
               "tessera serve: model '%s', context %lld, KV cache %lld blocks of %d tokens (%s), up to %lld "
               "sequences at once\n",
               model.id.c_str(), static_cast<long long>(longest), static_cast<long long>(kv.n_blocks), kv.block_size,
               format_bytes(kv.budget_bytes()).c_str(), static_cast<long long>(f.engine.max_batch));
  std::fprintf(stderr, "tessera serve: listening on http://%s:%d\n", f.host.c_str(), port);
  signals.start([&](int signal) {
    std::fprintf(stderr, "tessera serve: %s: stopping\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
    loop.cancel_all();
    server.stop();
  });
  server.listen();
  signals.stop();  // the handler has returned: nothing uses the server or the loop any more
  loop.stop();
  std::fprintf(stderr, "tessera serve: stopped\n");
  return 0;
}

}  // namespace tessera::cli
