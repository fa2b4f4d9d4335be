// The HTTP side of `tessera serve` (cpp-httplib): the routes of the OpenAI API, the
// API key check, the body limit, one log line per request, and the streaming of a
// call's chunks. Each connection is served on a thread of its own pool; a handler
// only waits on its call's event queue, so a slow client holds up nobody else.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "tools/tessera/serve/engine_loop.h"
#include "tools/tessera/serve/serve_metrics.h"
#include "tools/tessera/serve/served_model.h"

namespace tessera::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                    // 0: any free port (bind() says which)
  std::string api_key;                // "" = no key needed; else every route but /health needs "Bearer KEY"
  size_t max_body = size_t{8} << 20;  // bytes of a request body
  int threads = 128;                  // connections served at once
};

class HttpServer {
 public:
  // `model`, `loop` and `metrics` must outlive the server.
  HttpServer(const ServedModel& model, EngineLoop& loop, ServeMetrics& metrics, HttpOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the address; returns the port (the one chosen for port 0). Throws
  // tessera::Error when the address cannot be bound.
  int bind();
  // Serves until stop() (from another thread); returns once every connection is done.
  void listen();
  // Waits up to `grace` for the calls being answered to end (cancel their requests
  // first), then stops accepting and ends the connections; thread-safe.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::serve
