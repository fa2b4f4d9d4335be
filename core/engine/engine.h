// The serving engine: many requests on one model placement at once. It owns the
// executor, the paged KV cache sized by a memory budget, and the continuous-batching
// scheduler; each step() runs one batched graph step and streams tokens back.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/kv_budget.h"
#include "core/engine/model.h"
#include "core/engine/request.h"
#include "core/engine/scheduler.h"
#include "core/exec/graph_executor.h"
#include "core/kv/kv_cache.h"

namespace tessera {

struct EngineOptions {
  int32_t kv_block = 16;               // tokens per KV block [--kv-block]
  KvBudget kv_budget;                  // [--kv-mem]; default: max_batch full contexts
  int32_t max_batch = 64;              // sequences in the cache at once [--max-batch]
  int32_t max_tokens_per_step = 512;   // tokens per step, prefill chunks included [--max-tokens-per-step]
  int64_t n_ctx = 0;                   // longest sequence; 0 = the model's n_ctx (2048 if it has none)
  bool prefix_caching = true;          // reuse the KV blocks of equal prompt heads [--no-prefix-cache]
};

struct EngineStats {
  int64_t steps = 0;
  int64_t tokens_computed = 0;    // tokens run through the model (recomputation included)
  int64_t tokens_generated = 0;
  int64_t requests_finished = 0;
  int64_t requests_failed = 0;      // of those, ended by a failing step (FinishReason::Error)
  int64_t steps_failed = 0;         // steps that failed (their sequences then ran one at a time)
  int64_t preemptions = 0;
  int64_t migrations = 0;           // moves to another backend (Engine::migrate)
  int64_t requests_running = 0;     // now: sequences holding KV blocks
  int64_t requests_waiting = 0;     // now: submitted, not running (queued or preempted)
  double mean_batch_sequences = 0;  // per step
  double mean_batch_tokens = 0;     // per step
  double mean_waste_fraction = 0;   // reserved KV rows holding no token, averaged over steps
  double max_waste_fraction = 0;
  KvCacheStats kv;                  // the cache now (blocks, hit rate, ...)
};

// How Engine::migrate sizes and types the KV cache on the target.
struct MigrationOptions {
  // The cache's budget there, resolved against the target's memory; nullopt: the
  // same block count as now.
  std::optional<KvBudget> kv_budget = std::nullopt;
  // The cache's dtype there (f32, f16 or q8_0), the rows converted on the way;
  // nullopt: the same as now.
  std::optional<DType> kv_dtype = std::nullopt;
};

// What Engine::migrate did.
struct MigrationReport {
  std::string from, to;        // device names, "cpu:0" -> "vulkan:0"
  int64_t running = 0;         // sequences whose KV rows moved
  int64_t waiting = 0;         // requests queued, holding no KV rows
  int64_t kv_blocks = 0;       // blocks copied: in use, or holding a cached prefix
  int64_t cache_blocks = 0;    // blocks of the KV cache on the target
  int64_t preempted = 0;       // sequences preempted for a smaller cache there (recomputed later)
  DType kv_dtype = DType::F32; // of the cache there
  uint64_t kv_bytes = 0;
  uint64_t weight_bytes = 0;   // weights placed on the target
  double place_ms = 0;         // weights placed, KV cache allocated, kernels chosen there
  double copy_ms = 0;          // KV rows copied
  double total_ms = 0;
};

class Engine {
 public:
  // `model` must outlive the engine; `backend` need not (the executor keeps its
  // device and plugins). Throws tessera::Error for bad
  // options or a budget that holds no block. Destroying the engine drops the
  // requests in flight without final events.
  Engine(const Model& model, const Backend& backend, EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request; thread-safe. Tokenizes a text prompt and checks the request
  // here, throwing tessera::Error for an empty prompt, a token outside the
  // vocabulary, absurd sampling values, a prompt longer than the context, or a
  // request that could outgrow the whole KV budget (it could never finish).
  RequestId submit(Request request);
  // Ends a request at the next step with FinishReason::Cancelled (its final event
  // says so); thread-safe. Unknown or finished ids are ignored.
  void cancel(RequestId id);

  // Runs one batched graph step (the thread calling it runs every step and every
  // callback). Returns false when there was nothing to do. When the step fails (a
  // kernel or the device reports an error), each of its sequences is run again in a
  // step of its own: the ones that fail alone finish with FinishReason::Error (their
  // KV blocks freed, RequestResult::error saying why), the others go on as if nothing
  // happened. Verify mode's VerifyError is not a request's failure: it is thrown.
  bool step();
  // Steps until no request is queued or running. `before_step`, when given, is called
  // before each step (a caller's hook to migrate, say).
  void run_until_idle(const std::function<void()>& before_step = {});

  // Moves the engine to `target` between two steps: the weights are placed there, the
  // KV rows of every block in use or holding a cached prefix are copied block by block
  // to the same block ids, and the block tables, prefix cache, scheduler queues and
  // sampling state (RNG, penalties) carry on unchanged, so the requests continue as
  // if nothing had moved (half-done prefills included). The old device's buffers are
  // freed afterwards. Call from the stepping thread. Throws tessera::Error when the
  // target cannot take the run (a kernel it lacks, memory it cannot allocate); the
  // engine then stays where it was, untouched, and goes on there. A target whose
  // memory is known and smaller than the weights and KV cache is refused before
  // anything is allocated there.
  // With options.kv_budget, the cache there is sized by it (against the target's
  // memory) instead of keeping its block count: the blocks are renumbered, and when
  // fewer blocks are left than are in use the newest running sequences are preempted
  // (as when the cache runs out, recomputed later). A budget that some request in
  // flight could outgrow is refused. With options.kv_dtype, the cache there holds that
  // dtype and the rows are converted (through f32) as they are copied.
  MigrationReport migrate(const Backend& target, const MigrationOptions& options = {});
  // Something is queued, waiting or running; thread-safe.
  bool has_work() const;

  // Counters; call from the stepping thread.
  EngineStats stats() const;
  // Starts the counters afresh (after a warm-up, say); the cache keeps its contents.
  void reset_stats();
  const KvCacheBook& kv_cache() const { return *book_; }
  const GraphExecutor& executor() const { return *executor_; }
  int64_t n_ctx() const { return n_ctx_; }
  const EngineOptions& options() const { return options_; }

 private:
  struct Live;
  using Clock = std::chrono::steady_clock;

  void drain_inbox();
  void run_plan(const StepPlan& plan);
  // Runs the chunks of `plan` (their copies done) as one step, then samples.
  void run_chunks(const StepPlan& plan);
  // Ends the request of `chunk` with FinishReason::Error.
  void fail_chunk(const ScheduledChunk& chunk, const std::string& why);
  void on_logits(Live& live, const float* logits);
  // `logits`: the row `token` was sampled from ([n_vocab]), for its logprobs.
  void emit_token(Live& live, int32_t token, const float* logits);
  void finish(Live& live, FinishReason reason);
  // Throws when `request` could outgrow a cache of `n_blocks` blocks.
  void check_fits(const Request& request, RequestId id, int64_t n_blocks) const;
  // check_fits for every request in flight.
  void check_requests_fit(int64_t n_blocks) const;
  // What resolve_kv_blocks needs to size the cache of `graph` on `device`.
  KvBudgetContext budget_context(const Graph& graph, const Device& device) const;
  // The graph the executor runs: the model's, or its copy with another KV dtype.
  const Graph& graph() const { return retyped_ ? *retyped_ : model_.compiled().graph; }
  // Copies the KV rows into `moved`, renumbering them when its cache differs in size.
  void move_kv_rows(GraphExecutor& moved, MigrationReport& report);
  void record_step(const StepPlan& plan);

  const Model& model_;
  EngineOptions options_;
  int64_t n_ctx_;
  int64_t n_vocab_;
  uint64_t weight_bytes_ = 0;  // of the graph's weights, as the file stores them
  // The cache's block count and bytes per token, for submit's checks on other threads
  // (migrate changes them).
  std::atomic<int64_t> cache_blocks_{0};
  std::atomic<uint64_t> cache_bytes_per_token_{0};
  std::unique_ptr<KvCacheBook> book_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Graph> retyped_;  // declared before executor_, which reads it: destroyed after
  DType kv_dtype_;                  // of the cache now: the model's, or what a migration made it
  std::unique_ptr<GraphExecutor> executor_;
  std::map<RequestId, std::unique_ptr<Live>> live_;

  mutable std::mutex inbox_mutex_;  // guards the four below
  std::vector<std::unique_ptr<Live>> submitted_;
  std::vector<RequestId> cancelled_;
  RequestId next_id_ = 0;
  int64_t in_flight_ = 0;  // submitted and not finished

  StepBatch batch_;
  std::vector<float> logits_;
  std::vector<int> logits_chunk_;
  EngineStats totals_;
  double waste_sum_ = 0;
  double batch_sequences_sum_ = 0;
};

}  // namespace tessera
