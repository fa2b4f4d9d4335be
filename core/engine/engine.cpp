#include "core/engine/engine.h"

#include <algorithm>
#include <set>
#include <span>

#include "core/engine/batch_builder.h"
#include "core/engine/stop_text.h"
#include "core/sampling/logprobs.h"
#include "core/sampling/sampler.h"
#include "core/tokenizer/token_stream.h"
#include "core/util/error.h"

namespace tessera {
namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

int64_t blocks_for(int64_t tokens, int64_t block_size) { return (tokens + block_size - 1) / block_size; }

// The window blocks can be released behind: the widest window when every attention
// has one, 0 when any layer attends to the whole sequence.
int32_t release_window(const Graph& g) {
  int32_t widest = 0;
  for (const GraphNode& n : g.nodes()) {
    const auto* a = std::get_if<AttentionParams>(&n.params);
    if (!a) continue;
    if (a->window <= 0) return 0;
    widest = std::max(widest, a->window);
  }
  return widest;
}

uint64_t weight_bytes(const Graph& g, const WeightFile& w) {
  std::set<std::string> seen;
  uint64_t bytes = 0;
  for (const GraphTensor& t : g.tensors()) {
    if (t.role != TensorRole::Weight || !seen.insert(t.file_name).second) continue;
    if (const TensorView* v = w.find_tensor(t.file_name)) bytes += v->n_bytes;
  }
  return bytes;
}

}  // namespace

// A request in flight: what it asked for, its progress, and its streaming state.
struct Engine::Live {
  Live(RequestId id_, Request request_, const Tokenizer& tokenizer)
      : id(id_),
        request(std::move(request_)),
        sampler(request.sampling),
        decoder(tokenizer, request.prompt_ids.back()),
        stop_filter(request.stop.stop_texts) {
    work.request = id;
    work.tokens = request.prompt_ids;
    result.id = id;
    result.prompt_ids = request.prompt_ids;
    result.seed = sampler.seed();
  }

  RequestId id;
  Request request;
  SequenceWork work;
  Sampler sampler;
  TokenStreamDecoder decoder;
  StopTextFilter stop_filter;
  RequestResult result;
  Clock::time_point submitted = Clock::now();
  bool scheduled = false;
  bool has_token = false;
  bool done = false;
};

Engine::Engine(const Model& model, const Backend& backend, EngineOptions options)
    : model_(model),
      options_(options),
      n_ctx_(options.n_ctx > 0 ? options.n_ctx : model.compiled().n_ctx > 0 ? model.compiled().n_ctx : 2048),
      n_vocab_(model.compiled().n_vocab),
      kv_dtype_(model.compiled().kv_dtype) {
  if (options_.kv_block <= 0) throw Error("KV block size must be positive, got " + std::to_string(options_.kv_block));
  const Graph& graph = model.compiled().graph;
  weight_bytes_ = weight_bytes(graph, model.weights());
  const KvBudgetContext budget = budget_context(graph, *backend.device);
  KvCacheConfig config;
  config.block_size = options_.kv_block;
  config.n_blocks = resolve_kv_blocks(options_.kv_budget, budget);
  config.bytes_per_token = budget.bytes_per_token;
  config.prefix_caching = options_.prefix_caching;
  config.window = release_window(graph);
  book_ = std::make_unique<KvCacheBook>(config);
  cache_blocks_ = config.n_blocks;
  cache_bytes_per_token_ = config.bytes_per_token;
  scheduler_ = std::make_unique<Scheduler>(SchedulerLimits{options_.max_batch, options_.max_tokens_per_step}, *book_);
  executor_ = place_graph(graph, model.weights(), backend, KvCacheShape{config.block_size, config.n_blocks});
}

Engine::~Engine() = default;

KvBudgetContext Engine::budget_context(const Graph& graph, const Device& device) const {
  KvBudgetContext budget;
  budget.block_size = options_.kv_block;
  budget.bytes_per_token = graph.kv_bytes_per_token();
  budget.device_memory_bytes = device.info().memory_bytes;
  budget.weight_bytes = weight_bytes_;
  budget.default_tokens = static_cast<int64_t>(options_.max_batch) * n_ctx_;
  return budget;
}

RequestId Engine::submit(Request request) {
  const Tokenizer& tokenizer = model_.tokenizer();
  if (request.prompt_ids.empty()) request.prompt_ids = tokenizer.encode(request.prompt, tokenizer.add_bos());
  if (request.prompt_ids.empty()) throw Error("the prompt is empty and the vocabulary has no BOS token to start from");
  for (int32_t t : request.prompt_ids) {
    if (t < 0 || t >= n_vocab_) {
      throw Error("prompt token id " + std::to_string(t) + " is outside the vocabulary of " + std::to_string(n_vocab_));
    }
  }
  if (request.max_tokens < 0) {
    throw Error("the number of tokens to generate must be >= 0, got " + std::to_string(request.max_tokens));
  }
  std::unique_lock lock(inbox_mutex_);
  const RequestId id = next_id_++;
  lock.unlock();
  check_fits(request, id, cache_blocks_.load());
  auto live = std::make_unique<Live>(id, std::move(request), tokenizer);  // validates the sampling params
  lock.lock();
  submitted_.push_back(std::move(live));
  ++in_flight_;
  return id;
}

void Engine::check_fits(const Request& r, RequestId id, int64_t n_blocks) const {
  const auto prompt = static_cast<int64_t>(r.prompt_ids.size());
  if (prompt > n_ctx_) {
    throw Error("request " + std::to_string(id) + ": the prompt has " + std::to_string(prompt) +
                " tokens, more than the context of " + std::to_string(n_ctx_) + " (raise it with --ctx)");
  }
  // The most rows it holds: every token but the last one generated, up to the context.
  int64_t tokens = std::min<int64_t>(prompt + std::max(r.max_tokens, 1) - 1, n_ctx_);
  const KvCacheConfig& c = book_->config();
  int64_t blocks = blocks_for(tokens, c.block_size);
  if (c.window > 0) {
    // Only the window, plus a step's worth of new tokens and the blocks they straddle.
    blocks = std::min(blocks, blocks_for(c.window + options_.max_tokens_per_step, c.block_size) + 2);
  }
  if (blocks > n_blocks) {
    throw Error("request " + std::to_string(id) + " needs up to " + std::to_string(tokens) +
                " tokens of KV cache (prompt " + std::to_string(prompt) + " + up to " +
                std::to_string(r.max_tokens) + " new) but the whole budget holds " +
                std::to_string(n_blocks * c.block_size) + " tokens (" + std::to_string(n_blocks) +
                " blocks of " + std::to_string(c.block_size) + ", " +
                format_bytes(static_cast<double>(cache_bytes_per_token_.load()) *
                             static_cast<double>(n_blocks * c.block_size)) +
                "); raise --kv-mem or ask for fewer tokens");
  }
}

void Engine::check_requests_fit(int64_t n_blocks) const {
  for (const auto& [id, live] : live_) {
    if (!live->done) check_fits(live->request, id, n_blocks);
  }
}

void Engine::cancel(RequestId id) {
  std::lock_guard lock(inbox_mutex_);
  cancelled_.push_back(id);
}

bool Engine::has_work() const {
  std::lock_guard lock(inbox_mutex_);
  return in_flight_ > 0 || !cancelled_.empty();
}

void Engine::drain_inbox() {
  std::vector<std::unique_ptr<Live>> submitted;
  std::vector<RequestId> cancelled;
  {
    std::lock_guard lock(inbox_mutex_);
    submitted.swap(submitted_);
    cancelled.swap(cancelled_);
  }
  for (auto& live : submitted) {
    Live& l = *live;
    live_.emplace(l.id, std::move(live));
    scheduler_->enqueue(&l.work);
  }
  for (RequestId id : cancelled) {
    auto it = live_.find(id);
    if (it != live_.end() && !it->second->done) finish(*it->second, FinishReason::Cancelled);
  }
  std::erase_if(live_, [](const auto& entry) { return entry.second->done; });
}

bool Engine::step() {
  drain_inbox();
  const StepPlan plan = scheduler_->schedule();
  if (plan.chunks.empty()) {
    totals_.preemptions += static_cast<int64_t>(plan.preempted.size());
    return !plan.preempted.empty();
  }
  run_plan(plan);
  std::erase_if(live_, [](const auto& entry) { return entry.second->done; });
  return true;
}

void Engine::run_plan(const StepPlan& plan) {
  const Clock::time_point now = Clock::now();
  for (const ScheduledChunk& c : plan.chunks) {
    // In plan order: a later chunk's copy may overwrite an earlier one's source.
    if (c.slots.copy) executor_->copy_kv_block(c.slots.copy->src, c.slots.copy->dst);
    Live& l = *live_.at(c.work->request);
    if (!l.scheduled) {
      l.scheduled = true;
      l.result.queue_ms = ms_between(l.submitted, now);
    }
  }
  record_step(plan);
  try {
    run_chunks(plan);
    return;
  } catch (const VerifyError&) {
    throw;
  } catch (const Error& e) {
    ++totals_.steps_failed;
    if (plan.chunks.size() == 1) return fail_chunk(plan.chunks[0], e.what());
  }
  // Which sequence made the step fail is unknown: each runs alone once more (the rows
  // the failed step wrote are written again), and only those that fail alone end.
  for (const ScheduledChunk& c : plan.chunks) {
    StepPlan alone;
    alone.chunks.push_back(c);
    try {
      run_chunks(alone);
    } catch (const VerifyError&) {
      throw;
    } catch (const Error& e) {
      fail_chunk(c, e.what());
    }
  }
}

void Engine::run_chunks(const StepPlan& plan) {
  build_step_batch(plan, *book_, &batch_, &logits_chunk_);
  executor_->run(batch_, &logits_);
  scheduler_->complete(plan);
  // The step is done; a sequence whose logits cannot be sampled (NaN) fails alone here,
  // and the step is not run again: the others have their tokens already.
  for (size_t row = 0; row < logits_chunk_.size(); ++row) {
    if (logits_chunk_[row] < 0) continue;
    const ScheduledChunk& c = plan.chunks[static_cast<size_t>(logits_chunk_[row])];
    try {
      on_logits(*live_.at(c.work->request), logits_.data() + row * static_cast<size_t>(n_vocab_));
    } catch (const Error& e) {
      fail_chunk(c, e.what());
    }
  }
}

void Engine::fail_chunk(const ScheduledChunk& chunk, const std::string& why) {
  Live& l = *live_.at(chunk.work->request);
  l.result.error = why;
  ++totals_.requests_failed;
  finish(l, FinishReason::Error);  // frees its blocks: the reservation is never committed
}

void Engine::on_logits(Live& l, const float* logits) {
  if (static_cast<int64_t>(l.result.generated_ids.size()) >= l.request.max_tokens) {
    finish(l, FinishReason::Length);  // max_tokens 0: the prompt only
    return;
  }
  const int32_t token = l.sampler.sample(std::span<const float>(logits, static_cast<size_t>(n_vocab_)), l.work.tokens);
  if (!l.has_token) {
    l.has_token = true;
    l.result.ttft_ms = ms_between(l.submitted, Clock::now());
  }
  const Tokenizer& tokenizer = model_.tokenizer();
  if (tokenizer.ends_text(token) && !l.request.stop.ignore_eos) return finish(l, FinishReason::Eos);
  const auto& stops = l.request.stop.stop_token_ids;
  if (std::find(stops.begin(), stops.end(), token) != stops.end()) return finish(l, FinishReason::StopToken);

  emit_token(l, token, logits);
  if (l.stop_filter.stopped()) return finish(l, FinishReason::StopText);
  if (static_cast<int64_t>(l.result.generated_ids.size()) >= l.request.max_tokens) {
    return finish(l, FinishReason::Length);
  }
  // The new token would be computed at position tokens.size() - 1.
  if (static_cast<int64_t>(l.work.tokens.size()) - 1 >= n_ctx_) return finish(l, FinishReason::Context);
}

void Engine::emit_token(Live& l, int32_t token, const float* logits) {
  l.result.generated_ids.push_back(token);
  l.work.tokens.push_back(token);
  ++totals_.tokens_generated;
  RequestEvent event;
  event.id = l.id;
  event.token = token;
  if (l.request.logprobs >= 0) {
    event.logprobs = token_logprobs(std::span<const float>(logits, static_cast<size_t>(n_vocab_)), token,
                                    l.request.logprobs);
  }
  event.text = l.stop_filter.push(l.decoder.push(token));
  l.result.text += event.text;
  if (l.request.on_event) l.request.on_event(event);
}

void Engine::finish(Live& l, FinishReason reason) {
  const Clock::time_point now = Clock::now();
  l.done = true;
  scheduler_->finish(&l.work);
  RequestEvent event;
  event.id = l.id;
  event.text = l.stop_filter.push(l.decoder.finish());
  event.text += l.stop_filter.finish();
  l.result.text += event.text;
  l.result.finish = reason;
  l.result.cached_prompt_tokens = l.work.cached_tokens;
  l.result.preemptions = l.work.preemptions;
  l.result.total_ms = ms_between(l.submitted, now);
  if (!l.has_token) l.result.ttft_ms = l.result.total_ms;
  ++totals_.requests_finished;
  event.result = std::make_shared<const RequestResult>(l.result);
  if (l.request.on_event) l.request.on_event(event);
  std::lock_guard lock(inbox_mutex_);  // after the event: has_work() stays true until it is delivered
  --in_flight_;
}

void Engine::record_step(const StepPlan& plan) {
  ++totals_.steps;
  totals_.preemptions += static_cast<int64_t>(plan.preempted.size());
  totals_.tokens_computed += plan.n_tokens();
  batch_sequences_sum_ += static_cast<double>(plan.chunks.size());
  // The reservations of this step are made: their rows count as holding tokens.
  const double waste = book_->stats().waste_fraction;
  waste_sum_ += waste;
  totals_.max_waste_fraction = std::max(totals_.max_waste_fraction, waste);
}

void Engine::run_until_idle(const std::function<void()>& before_step) {
  while (has_work()) {
    if (before_step) before_step();
    if (!step() && has_work() && scheduler_->n_running() == 0) {
      throw Error("engine stalled: " + std::to_string(scheduler_->n_waiting()) +
                  " request(s) wait but none fits in the free KV blocks");
    }
  }
}

void Engine::reset_stats() {
  totals_ = EngineStats{};
  waste_sum_ = 0;
  batch_sequences_sum_ = 0;
  book_->reset_counters();
}

EngineStats Engine::stats() const {
  EngineStats s = totals_;
  if (s.steps > 0) {
    s.mean_batch_sequences = batch_sequences_sum_ / static_cast<double>(s.steps);
    s.mean_batch_tokens = static_cast<double>(s.tokens_computed) / static_cast<double>(s.steps);
    s.mean_waste_fraction = waste_sum_ / static_cast<double>(s.steps);
  }
  s.kv = book_->stats();
  s.requests_running = static_cast<int64_t>(scheduler_->n_running());
  std::lock_guard lock(inbox_mutex_);
  s.requests_waiting = static_cast<int64_t>(scheduler_->n_waiting() + submitted_.size());
  return s;
}

}  // namespace tessera
