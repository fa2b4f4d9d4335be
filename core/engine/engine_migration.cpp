// Engine::migrate: the run moves to another backend between two steps. Only the
// executor (weights, KV buffers, kernels) is device-bound; the KV book, scheduler
// and requests are host state and stay as they are.
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

}  // namespace

MigrationReport Engine::migrate(const Backend& target) {
  const auto t0 = std::chrono::steady_clock::now();
  MigrationReport report;
  report.from = executor_->device().name();
  report.to = target.device->name();
  const std::string refused = "cannot move the run from " + report.from + " to " + report.to + ": ";
  drain_inbox();  // requests submitted since the last step count as waiting

  const uint64_t memory = target.device->info().memory_bytes;
  const uint64_t needed = weight_bytes_ + executor_->kv_cache_bytes();
  if (memory > 0 && needed > memory) {
    throw Error(refused + "it needs " + format_bytes(static_cast<double>(executor_->kv_cache_bytes())) +
                " of KV cache and " + format_bytes(static_cast<double>(weight_bytes_)) + " of weights, but " +
                report.to + " has " + format_bytes(static_cast<double>(memory)) + " (the run stays on " +
                report.from + ")");
  }
  // Everything on the target is built before anything here changes: a failure
  // leaves the engine on its old device as it was.
  std::unique_ptr<GraphExecutor> moved;
  try {
    moved = std::make_unique<GraphExecutor>(model_.compiled().graph, model_.weights(), target.device,
                                            *target.registry, executor_->kv_shape());
  } catch (const Error& e) {
    throw Error(refused + e.what() + " (the run stays on " + report.from + ")");
  }
  report.place_ms = ms_since(t0);
  report.weight_bytes = moved->weight_bytes();

  const auto t1 = std::chrono::steady_clock::now();
  KvTransfer copied;
  try {
    copied = transfer_kv_blocks(*executor_, *moved, book_->occupied_blocks());
  } catch (const Error& e) {
    throw Error(refused + e.what() + " (the run stays on " + report.from + ")");
  }
  report.copy_ms = ms_since(t1);
  report.kv_blocks = copied.blocks;
  report.kv_bytes = copied.bytes;
  report.running = static_cast<int64_t>(scheduler_->n_running());
  report.waiting = static_cast<int64_t>(scheduler_->n_waiting());

  executor_ = std::move(moved);  // frees the old device's weights, cache and arena
  ++totals_.migrations;
  report.total_ms = ms_since(t0);
  return report;
}

}  // namespace tessera
