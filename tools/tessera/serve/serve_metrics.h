// What GET /metrics reports, in Prometheus' text exposition format: the engine's
// state (requests running and waiting, KV blocks, prefix hits, preemptions), token
// counts and rate, TTFT and TPOT histograms, and the HTTP requests by status.
// Thread-safe: the engine thread publishes, handler threads count and read.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/engine.h"

namespace tessera::serve {

// A cumulative histogram with fixed upper bounds (seconds), as Prometheus reads it.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // "<name>_bucket{le="..."} n" lines (+Inf last), then _sum and _count.
  std::string text(const std::string& name) const;
  int64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<int64_t> counts_;  // per bound, not cumulative; the last is +Inf
  double sum_ = 0;
  int64_t count_ = 0;
};

class ServeMetrics {
 public:
  using Clock = std::chrono::steady_clock;
  ServeMetrics();

  // A request's final event: its finish reason, tokens, TTFT and TPOT.
  void on_finished(const RequestResult& result);
  // One HTTP exchange answered with `status`.
  void on_http(int status);
  // The engine's counters after a step (from the engine thread).
  void publish(const EngineStats& stats, Clock::time_point now = Clock::now());
  // The whole exposition, rates computed at `now`.
  std::string prometheus_text(Clock::time_point now = Clock::now()) const;

 private:
  double tokens_per_second(Clock::time_point now) const;

  mutable std::mutex mutex_;
  EngineStats engine_;
  std::deque<std::pair<Clock::time_point, int64_t>> token_samples_;  // (when, tokens generated), one per 100 ms
  Histogram ttft_, tpot_;
  std::map<std::string, int64_t> finished_;  // by finish reason name
  std::map<int, int64_t> http_;              // by status
  int64_t prompt_tokens_ = 0;
  int64_t cached_prompt_tokens_ = 0;
};

}  // namespace tessera::serve
