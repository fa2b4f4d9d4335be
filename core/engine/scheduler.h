// Continuous batching: which sequences run in the next graph step and how many of
// their tokens (decode tokens and chunks of prefill), within the sequence and token
// limits and the KV blocks left, preempting the newest sequence when blocks run out.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/kv/kv_cache.h"

namespace tessera {

// A request's progress through the cache, as the scheduler sees it. Prefill and
// decode are the same thing here: run the next tokens not computed yet.
struct SequenceWork {
  int64_t request = -1;          // the engine's id, for messages
  std::vector<int32_t> tokens;   // prompt, then generated tokens; the last one is not computed yet
  int64_t n_computed = 0;        // leading tokens whose K/V rows are in the cache
  SeqId seq = -1;                // its sequence in the KV book while running, -1 while waiting
  int64_t cached_tokens = 0;     // tokens the prefix cache spared at the first admission
  int32_t admissions = 0;        // 1 + times recomputed after a preemption
  int32_t preemptions = 0;
};

// A run of `count` tokens of one sequence, starting at tokens[first] (its position).
struct ScheduledChunk {
  SequenceWork* work = nullptr;
  int64_t first = 0;
  int64_t count = 0;
  SlotReservation slots;  // its copy (if any) must run on the device before the step
  bool wants_logits = false;  // it ends at the last known token: sample after the step
};

struct StepPlan {
  std::vector<ScheduledChunk> chunks;      // running sequences first, oldest first; then new ones
  std::vector<SequenceWork*> preempted;    // their blocks were freed; they wait to be recomputed
  int64_t n_tokens() const;
};

struct SchedulerLimits {
  int32_t max_batch = 64;             // sequences holding KV blocks (so also per step)
  int32_t max_tokens_per_step = 512;  // tokens per step, prefill chunks included
};

class Scheduler {
 public:
  // `book` must outlive the scheduler; the scheduler owns its sequences.
  Scheduler(SchedulerLimits limits, KvCacheBook& book);

  // Puts a new request at the back of the waiting queue. `work` must stay valid
  // until finish(work).
  void enqueue(SequenceWork* work);

  // Plans the next step. Running sequences go first, oldest first, each with its
  // next tokens (a decode token, or the next prefill chunk); when the KV cache has
  // no room, the newest running sequence is preempted (its blocks freed, its
  // computed tokens forgotten, requeued at the front) until there is. Then, unless
  // something was preempted, waiting sequences are admitted in order, reusing cached
  // prefix blocks, while the sequence, token and block limits allow. Block copies
  // of the plan must run in plan order (a copy's source may be another's target).
  StepPlan schedule();

  // After the step ran: every chunk's tokens count as computed, and their full
  // blocks become reusable prefixes.
  void complete(const StepPlan& plan);

  // Removes a finished or cancelled sequence, running or waiting, and frees its blocks.
  void finish(SequenceWork* work);

  // Preempts the newest running sequences, as schedule() does when blocks run out,
  // until at most `max_blocks` KV blocks are in use or nothing runs (a cache about to
  // shrink). Returns how many it preempted.
  int64_t preempt_to(int64_t max_blocks);

  size_t n_running() const { return running_.size(); }
  size_t n_waiting() const { return waiting_.size(); }
  bool idle() const { return running_.empty() && waiting_.empty(); }
  int64_t preemptions() const { return preemptions_; }
  const SchedulerLimits& limits() const { return limits_; }

 private:
  // Schedules running_[i]; false when it was preempted itself for lack of blocks.
  bool schedule_running(size_t i, int64_t& tokens_left, StepPlan& plan);
  void admit_waiting(int64_t& tokens_left, StepPlan& plan);
  SequenceWork* preempt_newest();

  SchedulerLimits limits_;
  KvCacheBook& book_;
  std::vector<SequenceWork*> running_;  // admission order: oldest first
  std::deque<SequenceWork*> waiting_;   // preempted ones at the front
  int64_t preemptions_ = 0;
};

}  // namespace tessera
