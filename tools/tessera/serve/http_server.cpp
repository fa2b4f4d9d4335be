#include "tools/tessera/serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include "core/util/error.h"
#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/generation_handler.h"
#include "tools/tessera/serve/idle_connections.h"
#include "tools/tessera/serve/request_log.h"
#include "tools/tessera/serve/response_json.h"

namespace tessera::serve {
namespace {

using Handled = httplib::Server::HandlerResponse;

constexpr size_t kKeepAliveRequests = 1000;  // per connection, before the server closes it
constexpr int kListenBacklog = 1024;         // connections the kernel queues before they are accepted
// A client busy elsewhere may leave its stream unread for a while; past this, a write fails
// and its request is cancelled (httplib's default is 5 s).
constexpr time_t kWriteTimeoutSeconds = 20;
// Longer than the idle expiry of common HTTP clients' connection pools (5 s in httpx, which
// the openai package uses): the client drops an idle connection first, and never sends a
// request on one the server is closing at that very moment (httplib's default is also 5 s).
constexpr time_t kKeepAliveSeconds = 15;

// httplib::Server with the listening socket's backlog widened: the library listens with
// a backlog of 5, and a burst of clients connecting at once then overflows the kernel's
// queue (connections dropped, retried a second later, or reset).
class Listener : public httplib::Server {
 public:
  void widen_backlog(int backlog) { ::listen(svr_sock_, backlog); }  // listen() again only resizes the queue
};

void respond_json(httplib::Response& response, const nlohmann::ordered_json& body) {
  response.set_content(json_text(body), "application/json");
}

// Compares without stopping at the first difference, so the time taken says nothing of the key.
bool same_secret(const std::string& given, const std::string& expected) {
  if (given.size() != expected.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
  return diff == 0;
}

}  // namespace

struct HttpServer::Impl {
  Impl(const ServedModel& m, EngineLoop& l, ServeMetrics& s, HttpOptions o)
      : model(m), loop(l), metrics(s), options(std::move(o)), generation{model, loop, log, calls, options.max_body} {}

  void setup();
  Handled authorize(const httplib::Request& request, httplib::Response& response);
  void health(httplib::Response& response);
  void models(const httplib::Request& request, httplib::Response& response);

  const ServedModel& model;
  EngineLoop& loop;
  ServeMetrics& metrics;
  HttpOptions options;
  RequestLog log;
  CallCounter calls;
  GenerationContext generation;
  Listener server;
  int port = 0;  // bound
};

Handled HttpServer::Impl::authorize(const httplib::Request& request, httplib::Response& response) {
  log.start(&request);
  // /health stays open: a load balancer or orchestrator probes it without the key.
  if (options.api_key.empty() || request.path == "/health") return Handled::Unhandled;
  if (same_secret(request.get_header_value("Authorization"), "Bearer " + options.api_key)) return Handled::Unhandled;
  respond_error(response, error_for_status(401));
  return Handled::Handled;
}

void HttpServer::Impl::health(httplib::Response& response) {
  const std::string failure = loop.failure();
  if (!failure.empty()) {
    response.status = 503;
    respond_json(response, {{"status", "error"}, {"error", failure}});
    return;
  }
  respond_json(response, {{"status", "ok"}});
}

void HttpServer::Impl::models(const httplib::Request& request, httplib::Response& response) {
  if (request.matches.size() < 2) return respond_json(response, models_json(model.id, model.created));
  const std::string id = request.matches[1];
  if (id != model.id) {
    return respond_error(response, ApiError(404, "the model '" + id + "' does not exist", "invalid_request_error",
                                            "model", "model_not_found"));
  }
  respond_json(response, model_json(model.id, model.created));
}

void HttpServer::Impl::setup() {
  const int threads = options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server.set_payload_max_length(options.max_body);
  server.set_keep_alive_max_count(kKeepAliveRequests);
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  // Each token is a small write: without TCP_NODELAY, Nagle's algorithm holds it until the
  // client's delayed ACK (40 ms) comes back.
  server.set_tcp_nodelay(true);
  server.set_write_timeout(kWriteTimeoutSeconds);
  server.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return authorize(req, res); });
  server.Post("/v1/chat/completions",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                handle_generation(generation, Endpoint::Chat, req, res, reader);
              });
  server.Post("/v1/completions",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                handle_generation(generation, Endpoint::Completion, req, res, reader);
              });
  server.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) { models(req, res); });
  server.Get(R"(/v1/models/(.+))", [this](const httplib::Request& req, httplib::Response& res) { models(req, res); });
  server.Get("/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.prometheus_text(), "text/plain; version=0.0.4");
  });
  // A status without a body (no route, a body over the limit, a malformed request): OpenAI's error object.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.content_provider_) return Handled::Unhandled;
    respond_error(res, error_for_status(res.status));
    return Handled::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal server error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    respond_error(res, ApiError(500, what, "server_error"));
  });
  server.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics.on_http(res.status);
    log.finish(&req, req.method, req.path, res.status);
  });
}

HttpServer::HttpServer(const ServedModel& model, EngineLoop& loop, ServeMetrics& metrics, HttpOptions options)
    : impl_(std::make_unique<Impl>(model, loop, metrics, std::move(options))) {
  impl_->setup();
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() {
  const HttpOptions& o = impl_->options;
  int port = o.port;
  if (o.port == 0) {
    port = impl_->server.bind_to_any_port(o.host);
    if (port <= 0) throw Error("cannot listen on " + o.host + ": no free port could be bound");
  } else if (!impl_->server.bind_to_port(o.host, o.port)) {
    throw Error("cannot listen on " + o.host + ":" + std::to_string(o.port) + " (in use, or not an address here)");
  }
  impl_->server.widen_backlog(kListenBacklog);
  impl_->port = port;
  return port;
}

void HttpServer::listen() { impl_->server.listen_after_bind(); }

void HttpServer::stop(std::chrono::milliseconds grace) {
  // The calls end once their requests do (EngineLoop::cancel_all): they get to send
  // their last events before the connections close.
  impl_->calls.wait_idle(grace);
  impl_->server.stop();
  shut_down_connections(impl_->port);  // idle keep-alive ones would hold listen() up
}

}  // namespace tessera::serve
