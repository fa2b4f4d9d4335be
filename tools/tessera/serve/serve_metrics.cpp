#include "tools/tessera/serve/serve_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tessera::serve {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(10);  // tokens/s over the last 10 s
constexpr auto kSampleEvery = std::chrono::milliseconds(100);

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void family(std::ostringstream& out, const std::string& name, const char* type, const std::string& help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

void sample(std::ostringstream& out, const std::string& name, double value) {
  out << name << ' ' << number(value) << '\n';
}

void gauge(std::ostringstream& out, const std::string& name, const std::string& help, double value) {
  family(out, name, "gauge", help);
  sample(out, name, value);
}

void counter(std::ostringstream& out, const std::string& name, const std::string& help, double value) {
  family(out, name, "counter", help);
  sample(out, name, value);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

std::string Histogram::text(const std::string& name) const {
  std::ostringstream out;
  int64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out << name << "_bucket{le=\"" << le << "\"} " << cumulative << '\n';
  }
  out << name << "_sum " << number(sum_) << '\n' << name << "_count " << count_ << '\n';
  return out.str();
}

ServeMetrics::ServeMetrics()
    : ttft_({0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60}),
      tpot_({0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}) {}

void ServeMetrics::on_finished(const RequestResult& r) {
  std::lock_guard lock(mutex_);
  ++finished_[std::string(finish_reason_name(r.finish))];
  prompt_tokens_ += static_cast<int64_t>(r.prompt_ids.size());
  cached_prompt_tokens_ += r.cached_prompt_tokens;
  if (r.finish == FinishReason::Cancelled || r.finish == FinishReason::Error) return;
  if (!r.generated_ids.empty()) ttft_.observe(r.ttft_ms / 1e3);
  if (r.generated_ids.size() >= 2) tpot_.observe(r.tpot_ms() / 1e3);
}

void ServeMetrics::on_http(int status) {
  std::lock_guard lock(mutex_);
  ++http_[status];
}

void ServeMetrics::publish(const EngineStats& stats, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  engine_ = stats;
  if (token_samples_.empty() || now - token_samples_.back().first >= kSampleEvery) {
    token_samples_.emplace_back(now, stats.tokens_generated);
  } else {
    token_samples_.back().second = stats.tokens_generated;
  }
  while (token_samples_.size() > 2 && now - token_samples_[1].first > kRateWindow) token_samples_.pop_front();
}

double ServeMetrics::tokens_per_second(Clock::time_point now) const {
  if (token_samples_.empty()) return 0;
  // From the newest sample at least a window old (or the oldest there is) to now.
  auto from = token_samples_.front();
  for (const auto& s : token_samples_) {
    if (now - s.first >= kRateWindow) from = s;
  }
  const double seconds = std::chrono::duration<double>(now - from.first).count();
  const auto tokens = static_cast<double>(engine_.tokens_generated - from.second);
  return seconds > 0 ? tokens / std::max(seconds, 1.0) : 0;
}

std::string ServeMetrics::prometheus_text(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  const EngineStats& s = engine_;
  std::ostringstream out;
  gauge(out, "tessera_requests_running", "Requests whose sequences hold KV blocks now.",
        static_cast<double>(s.requests_running));
  gauge(out, "tessera_requests_waiting", "Requests submitted and not running (queued or preempted).",
        static_cast<double>(s.requests_waiting));
  counter(out, "tessera_generation_tokens_total", "Tokens generated.", static_cast<double>(s.tokens_generated));
  counter(out, "tessera_prompt_tokens_total", "Prompt tokens of the finished requests.",
          static_cast<double>(prompt_tokens_));
  counter(out, "tessera_prompt_tokens_cached_total", "Of those, tokens the prefix cache spared.",
          static_cast<double>(cached_prompt_tokens_));
  gauge(out, "tessera_generation_tokens_per_second", "Tokens generated per second over the last 10 s.",
        tokens_per_second(now));
  family(out, "tessera_time_to_first_token_seconds", "histogram", "From submission to the first token.");
  out << ttft_.text("tessera_time_to_first_token_seconds");
  family(out, "tessera_time_per_output_token_seconds", "histogram",
         "Mean time per token after the first, per request.");
  out << tpot_.text("tessera_time_per_output_token_seconds");
  gauge(out, "tessera_kv_blocks_total", "Blocks of the paged KV cache.", static_cast<double>(s.kv.blocks_total));
  gauge(out, "tessera_kv_blocks_used", "KV blocks held by sequences.", static_cast<double>(s.kv.blocks_used));
  gauge(out, "tessera_kv_blocks_cached", "Free KV blocks still holding a reusable prefix.",
        static_cast<double>(s.kv.blocks_cached));
  gauge(out, "tessera_prefix_cache_hit_rate", "Prompt tokens found in the prefix cache, of those looked up (0-1).",
        s.kv.prefix_hit_rate);
  counter(out, "tessera_preemptions_total", "Sequences preempted when the KV cache ran out (recomputed later).",
          static_cast<double>(s.preemptions));
  counter(out, "tessera_requests_failed_total", "Requests ended by a failing step (FinishReason::Error).",
          static_cast<double>(s.requests_failed));
  family(out, "tessera_requests_finished_total", "counter", "Requests finished, by reason.");
  for (const auto& [reason, n] : finished_) {
    out << "tessera_requests_finished_total{reason=\"" << reason << "\"} " << n << '\n';
  }
  family(out, "tessera_http_requests_total", "counter", "HTTP requests answered, by status.");
  for (const auto& [status, n] : http_) out << "tessera_http_requests_total{status=\"" << status << "\"} " << n << '\n';
  return out.str();
}

}  // namespace tessera::serve
