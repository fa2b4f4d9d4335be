// Engine::migrate: the run moves to another backend between two steps. Only the
// executor (weights, KV buffers, kernels) is device-bound; the KV book, scheduler
// and requests are host state and stay as they are (the book renumbered when the
// cache is sized differently there).
#include <chrono>

#include "core/engine/engine.h"
#include "core/exec/kv_transfer.h"
#include "core/util/error.h"
#include "core/util/format_bytes.h"

namespace tessera {
namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string bytes_text(uint64_t n) { return format_bytes(static_cast<double>(n)); }

}  // namespace

MigrationReport Engine::migrate(const Backend& target, const MigrationOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  MigrationReport report;
  report.from = executor_->device().name();
  report.to = target.device->name();
  const std::string refused = "cannot move the run from " + report.from + " to " + report.to + ": ";
  const std::string stays = " (the run stays on " + report.from + ")";
  drain_inbox();  // requests submitted since the last step count as waiting

  // Everything on the target is checked and built before anything here changes.
  const KvCacheConfig& config = book_->config();
  report.cache_blocks = config.n_blocks;
  report.kv_dtype = kv_dtype_;
  std::unique_ptr<Graph> retyped;
  try {
    if (options.kv_dtype && *options.kv_dtype != report.kv_dtype) {
      retyped = std::make_unique<Graph>(with_kv_dtype(model_.compiled().graph, *options.kv_dtype));
      report.kv_dtype = *options.kv_dtype;
    }
    const Graph& graph_there = retyped ? *retyped : graph();
    if (options.kv_budget) {
      report.cache_blocks = resolve_kv_blocks(*options.kv_budget, budget_context(graph_there, *target.device));
    }
    check_requests_fit(report.cache_blocks);
  } catch (const Error& e) {
    throw Error(refused + e.what() + stays);
  }
  const Graph& graph_there = retyped ? *retyped : graph();
  const uint64_t kv_bytes = graph_there.kv_bytes_per_token() * static_cast<uint64_t>(config.block_size) *
                            static_cast<uint64_t>(report.cache_blocks);
  const uint64_t memory = target.device->info().memory_bytes;
  if (memory > 0 && weight_bytes_ + kv_bytes > memory) {
    throw Error(refused + "it needs " + bytes_text(kv_bytes) + " of KV cache and " + bytes_text(weight_bytes_) +
                " of weights, but " + report.to + " has " + bytes_text(memory) + stays);
  }
  std::unique_ptr<GraphExecutor> moved;
  try {
    moved = place_graph(graph_there, model_.weights(), target, KvCacheShape{config.block_size, report.cache_blocks});
  } catch (const Error& e) {
    throw Error(refused + e.what() + stays);
  }
  report.place_ms = ms_since(t0);
  report.weight_bytes = moved->weight_bytes();

  const auto t1 = std::chrono::steady_clock::now();
  try {
    move_kv_rows(*moved, report);
  } catch (const Error& e) {
    throw Error(refused + e.what() + stays);
  }
  report.copy_ms = ms_since(t1);
  report.running = static_cast<int64_t>(scheduler_->n_running());
  report.waiting = static_cast<int64_t>(scheduler_->n_waiting());

  executor_ = std::move(moved);  // frees the old device's weights, cache and arena
  if (retyped) {
    retyped_ = std::move(retyped);  // after the old executor, which read the old graph
    kv_dtype_ = report.kv_dtype;
    book_->set_bytes_per_token(retyped_->kv_bytes_per_token());
    cache_bytes_per_token_ = retyped_->kv_bytes_per_token();
  }
  ++totals_.migrations;
  report.total_ms = ms_since(t0);
  return report;
}

void Engine::move_kv_rows(GraphExecutor& moved, MigrationReport& report) {
  const int64_t n_blocks = report.cache_blocks;
  if (n_blocks == book_->config().n_blocks) {
    const KvTransfer t = transfer_kv_blocks(*executor_, moved, book_->occupied_blocks());
    report.kv_blocks = t.blocks;
    report.kv_bytes = t.bytes;
    return;
  }
  // A smaller cache there: the newest sequences give their blocks back first, like a
  // step that runs out of blocks (they are recomputed; nothing is lost). A failure
  // below leaves them preempted, the book and the old cache as they were.
  report.preempted = scheduler_->preempt_to(n_blocks);
  totals_.preemptions += report.preempted;
  const std::vector<int32_t> new_id = book_->plan_resize(n_blocks);
  std::vector<KvBlockMove> moves;
  for (size_t b = 0; b < new_id.size(); ++b) {
    if (new_id[b] >= 0) moves.push_back({static_cast<int32_t>(b), new_id[b]});
  }
  const KvTransfer t = transfer_kv_blocks(*executor_, moved, moves);
  report.kv_blocks = t.blocks;
  report.kv_bytes = t.bytes;
  book_->resize(n_blocks, new_id);
  cache_blocks_ = n_blocks;
}

}  // namespace tessera
