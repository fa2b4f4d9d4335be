#include "core/engine/scheduler.h"

#include <algorithm>
#include <span>
#include <string>

#include "core/util/error.h"

namespace tessera {
namespace {

int64_t blocks_for(int64_t tokens, int64_t block_size) { return (tokens + block_size - 1) / block_size; }

std::span<const int32_t> pending_tokens(const SequenceWork& w, int64_t count) {
  return std::span<const int32_t>(w.tokens).subspan(static_cast<size_t>(w.n_computed), static_cast<size_t>(count));
}

}  // namespace

int64_t StepPlan::n_tokens() const {
  int64_t n = 0;
  for (const ScheduledChunk& c : chunks) n += c.count;
  return n;
}

Scheduler::Scheduler(SchedulerLimits limits, KvCacheBook& book) : limits_(limits), book_(book) {
  if (limits_.max_batch <= 0) throw Error("max batch must be positive, got " + std::to_string(limits_.max_batch));
  if (limits_.max_tokens_per_step <= 0) {
    throw Error("max tokens per step must be positive, got " + std::to_string(limits_.max_tokens_per_step));
  }
}

void Scheduler::enqueue(SequenceWork* work) {
  if (work->tokens.empty()) throw Error("request " + std::to_string(work->request) + " has no tokens");
  waiting_.push_back(work);
}

StepPlan Scheduler::schedule() {
  StepPlan plan;
  int64_t tokens_left = limits_.max_tokens_per_step;
  for (size_t i = 0; i < running_.size() && tokens_left > 0;) {
    if (schedule_running(i, tokens_left, plan)) ++i;
  }
  // Admitting while preempting would only preempt again next step.
  if (plan.preempted.empty()) admit_waiting(tokens_left, plan);
  return plan;
}

bool Scheduler::schedule_running(size_t i, int64_t& tokens_left, StepPlan& plan) {
  SequenceWork* w = running_[i];
  const int64_t count = std::min<int64_t>(static_cast<int64_t>(w->tokens.size()) - w->n_computed, tokens_left);
  if (count == 0) return true;  // nothing to compute (the engine finishes such a sequence)
  for (;;) {
    std::optional<SlotReservation> r = book_.try_reserve_tokens(w->seq, pending_tokens(*w, count));
    if (r) {
      const bool last = w->n_computed + count == static_cast<int64_t>(w->tokens.size());
      plan.chunks.push_back({w, w->n_computed, count, std::move(*r), last});
      tokens_left -= count;
      return true;
    }
    // Out of blocks: the newest sequence gives its blocks back. Everything after
    // running_[i] is not scheduled yet, so no planned chunk loses its blocks.
    const bool self = running_.back() == w;
    plan.preempted.push_back(preempt_newest());
    if (self) return false;
  }
}

void Scheduler::admit_waiting(int64_t& tokens_left, StepPlan& plan) {
  const int64_t bs = book_.config().block_size;
  while (!waiting_.empty() && tokens_left > 0 && running_.size() < static_cast<size_t>(limits_.max_batch)) {
    SequenceWork* w = waiting_.front();
    // Check the blocks before touching the book, so the hit rate counts admissions only.
    const PrefixProbe probe = book_.probe_prefix(w->tokens);
    const int64_t count = std::min<int64_t>(static_cast<int64_t>(w->tokens.size()) - probe.cached_tokens, tokens_left);
    const int64_t new_blocks = blocks_for(probe.cached_tokens + count, bs) - probe.cached_tokens / bs;
    if (probe.blocks_to_revive + new_blocks > book_.free_blocks()) break;

    const PrefixHit hit = book_.add_sequence_with_prefix(w->tokens);
    w->seq = hit.seq;
    w->n_computed = hit.cached_tokens;
    if (w->admissions++ == 0) w->cached_tokens = hit.cached_tokens;
    std::optional<SlotReservation> r = book_.try_reserve_tokens(w->seq, pending_tokens(*w, count));
    if (!r) {
      throw Error("scheduler: admission of request " + std::to_string(w->request) +
                  " found fewer free blocks than probed");
    }
    const bool last = w->n_computed + count == static_cast<int64_t>(w->tokens.size());
    plan.chunks.push_back({w, w->n_computed, count, std::move(*r), last});
    tokens_left -= count;
    running_.push_back(w);
    waiting_.pop_front();
  }
}

SequenceWork* Scheduler::preempt_newest() {
  SequenceWork* victim = running_.back();
  running_.pop_back();
  book_.free_sequence(victim->seq);
  victim->seq = -1;
  victim->n_computed = 0;
  ++victim->preemptions;
  ++preemptions_;
  waiting_.push_front(victim);
  return victim;
}

int64_t Scheduler::preempt_to(int64_t max_blocks) {
  int64_t n = 0;
  for (; !running_.empty() && book_.allocator().n_used() > max_blocks; ++n) preempt_newest();
  return n;
}

void Scheduler::complete(const StepPlan& plan) {
  for (const ScheduledChunk& c : plan.chunks) {
    c.work->n_computed += c.count;
    book_.commit(c.work->seq);
  }
}

void Scheduler::finish(SequenceWork* work) {
  if (auto it = std::find(running_.begin(), running_.end(), work); it != running_.end()) {
    running_.erase(it);
    book_.free_sequence(work->seq);
    work->seq = -1;
    return;
  }
  if (auto it = std::find(waiting_.begin(), waiting_.end(), work); it != waiting_.end()) {
    waiting_.erase(it);
    return;
  }
  throw Error("scheduler: request " + std::to_string(work->request) + " is neither running nor waiting");
}

}  // namespace tessera
