// Scheduler: what each step runs (decode first, then prefill chunks of new
// sequences), the sequence and token limits, prefix hits, preemption of the newest
// sequence when blocks run out, and the blocks given back at the end.
#include "core/engine/scheduler.h"

#include "core/util/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <numeric>
#include <set>

namespace tessera {
namespace {

using ::testing::ElementsAre;

SequenceWork work_of(int64_t id, int n_prompt, int32_t first_token = 10) {
  SequenceWork w;
  w.request = id;
  w.tokens.resize(static_cast<size_t>(n_prompt));
  std::iota(w.tokens.begin(), w.tokens.end(), first_token);
  return w;
}

struct ChunkView {
  int64_t request, first, count;
  bool wants_logits;
  friend bool operator==(const ChunkView&, const ChunkView&) = default;
  friend std::ostream& operator<<(std::ostream& os, const ChunkView& c) {
    return os << "{" << c.request << ", " << c.first << ", " << c.count << ", " << c.wants_logits << "}";
  }
};

std::vector<ChunkView> view(const StepPlan& plan) {
  std::vector<ChunkView> v;
  for (const ScheduledChunk& c : plan.chunks) v.push_back({c.work->request, c.first, c.count, c.wants_logits});
  return v;
}

// What the engine does after a step: mark the chunks computed, then give every
// sequence that wanted logits its next token.
void run_step(Scheduler& s, const StepPlan& plan, int32_t sampled = 7) {
  s.complete(plan);
  for (const ScheduledChunk& c : plan.chunks) {
    if (c.wants_logits) c.work->tokens.push_back(sampled);
  }
}

class SchedulerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (SequenceWork* w : works) {
      if (!finished.count(w)) s->finish(w);
    }
    EXPECT_EQ(book.stats().blocks_used, 0) << "blocks leaked";
  }
  void limits(int32_t max_batch, int32_t max_tokens) {
    s = std::make_unique<Scheduler>(SchedulerLimits{max_batch, max_tokens}, book);
  }
  void enqueue(SequenceWork& w) {
    works.push_back(&w);
    s->enqueue(&w);
  }
  void finish(SequenceWork& w) {
    finished.insert(&w);
    s->finish(&w);
  }
  StepPlan schedule() { return s->schedule(); }
  // Owned here, so that TearDown can still finish them.
  SequenceWork& make(int64_t id, int n_prompt, int32_t first_token = 10) {
    return owned.emplace_back(work_of(id, n_prompt, first_token));
  }
  void step() { run_step(*s, s->schedule()); }

  KvCacheBook book{{.block_size = 4, .n_blocks = 8, .bytes_per_token = 0, .prefix_caching = true}};
  std::unique_ptr<Scheduler> s = std::make_unique<Scheduler>(SchedulerLimits{3, 10}, book);
  std::deque<SequenceWork> owned;
  std::vector<SequenceWork*> works;
  std::set<SequenceWork*> finished;
};

TEST_F(SchedulerTest, AdmitsWaitingSequencesInOrderAndChunksTheLastPrefill) {
  SequenceWork& a = make(0, 5);
  SequenceWork& b = make(1, 3, 50);
  SequenceWork& c = make(2, 4, 90);
  enqueue(a);
  enqueue(b);
  enqueue(c);
  StepPlan plan = schedule();
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 0, 5, true}, ChunkView{1, 0, 3, true}, ChunkView{2, 0, 2, false}));
  EXPECT_EQ(plan.n_tokens(), 10);
  EXPECT_EQ(s->n_running(), 3u);
  EXPECT_EQ(plan.chunks[0].slots.slots, (std::vector<int32_t>{0, 1, 2, 3, 4}));
}

TEST_F(SchedulerTest, DecodeTokensComeFirstThenTheRestOfAPrefill) {
  SequenceWork& a = make(0, 5);
  SequenceWork& b = make(1, 3, 50);
  SequenceWork& c = make(2, 14, 90);
  enqueue(a);
  enqueue(b);
  enqueue(c);
  step();
  StepPlan plan = schedule();
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 5, 1, true}, ChunkView{1, 3, 1, true}, ChunkView{2, 2, 8, false}));
  run_step(*s, plan);
  EXPECT_THAT(view(schedule()),
              ElementsAre(ChunkView{0, 6, 1, true}, ChunkView{1, 4, 1, true}, ChunkView{2, 10, 4, true}));
}

TEST_F(SchedulerTest, MaxBatchKeepsLaterRequestsWaiting) {
  SequenceWork& a = make(0, 1);
  SequenceWork& b = make(1, 1, 20);
  SequenceWork& c = make(2, 1, 30);
  SequenceWork& d = make(3, 1, 40);
  for (SequenceWork* w : {&a, &b, &c, &d}) enqueue(*w);
  StepPlan plan = schedule();
  EXPECT_EQ(plan.chunks.size(), 3u);
  EXPECT_EQ(s->n_waiting(), 1u);
  run_step(*s, plan);
  finish(b);
  EXPECT_THAT(view(schedule()),
              ElementsAre(ChunkView{0, 1, 1, true}, ChunkView{2, 1, 1, true}, ChunkView{3, 0, 1, true}));
}

TEST_F(SchedulerTest, APromptHeadInTheCacheIsNotRecomputed) {
  SequenceWork& a = make(0, 10);
  SequenceWork& b = make(1, 10);  // equal prompts
  enqueue(a);
  step();
  enqueue(b);
  StepPlan plan = schedule();
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 10, 1, true}, ChunkView{1, 8, 2, true}));
  EXPECT_EQ(b.cached_tokens, 8);
  EXPECT_EQ(book.stats().prefix_hit_tokens, 8);
}

TEST_F(SchedulerTest, OutOfBlocksPreemptsTheNewestSequence) {
  limits(3, 32);
  SequenceWork& a = make(0, 12);
  SequenceWork& b = make(1, 12, 50);
  SequenceWork& c = make(2, 8, 90);  // 3 + 3 + 2 blocks: all 8
  enqueue(a);
  enqueue(b);
  enqueue(c);
  step();
  ASSERT_EQ(book.free_blocks(), 0);
  StepPlan plan = schedule();  // a and b decode into a fourth block each: c, the newest, gives its two back
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 12, 1, true}, ChunkView{1, 12, 1, true}));
  ASSERT_EQ(plan.preempted.size(), 1u);
  EXPECT_EQ(plan.preempted[0], &c);
  EXPECT_EQ(c.seq, -1);
  EXPECT_EQ(c.n_computed, 0);
  EXPECT_EQ(c.preemptions, 1);
  EXPECT_EQ(c.tokens.size(), 9u);  // its sampled token stays: it is recomputed, not resampled
  EXPECT_EQ(s->preemptions(), 1);
  EXPECT_EQ(s->n_waiting(), 1u);
}

TEST_F(SchedulerTest, TheNewestSequencePreemptsItselfWhenNothingElseFrees) {
  limits(3, 32);
  SequenceWork& a = make(0, 15);
  SequenceWork& b = make(1, 16, 50);  // 4 blocks each: the whole cache
  enqueue(a);
  enqueue(b);
  step();
  StepPlan plan = schedule();  // a decodes into its fourth block; b needs a fifth and is the newest
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 15, 1, true}));
  EXPECT_THAT(plan.preempted, ElementsAre(&b));
  EXPECT_EQ(s->n_running(), 1u);
}

TEST_F(SchedulerTest, NothingIsAdmittedInAStepThatPreempts) {
  limits(4, 32);
  SequenceWork& a = make(0, 12);
  SequenceWork& b = make(1, 11, 50);
  SequenceWork& c = make(2, 8, 90);
  SequenceWork& d = make(3, 1, 200);
  enqueue(a);
  enqueue(b);
  enqueue(c);
  step();
  enqueue(d);
  StepPlan plan = schedule();  // c goes so a gets a block; one block is then free, enough for d
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 12, 1, true}, ChunkView{1, 11, 1, true}));
  EXPECT_EQ(book.free_blocks(), 1);
  EXPECT_EQ(s->n_waiting(), 2u);
}

TEST_F(SchedulerTest, AWaitingSequenceWaitsForBlocksWithoutPreempting) {
  limits(3, 64);
  SequenceWork& a = make(0, 24);
  SequenceWork& b = make(1, 12, 50);  // 6 blocks, then 3 more of 8
  enqueue(a);
  enqueue(b);
  StepPlan plan = schedule();
  EXPECT_THAT(view(plan), ElementsAre(ChunkView{0, 0, 24, true}));
  EXPECT_TRUE(plan.preempted.empty());
  EXPECT_EQ(s->n_waiting(), 1u);
}

TEST_F(SchedulerTest, FinishFreesTheBlocksOfARunningSequence) {
  SequenceWork& a = make(0, 9);
  enqueue(a);
  step();
  EXPECT_EQ(book.stats().blocks_used, 3);
  finish(a);
  EXPECT_EQ(book.stats().blocks_used, 0);
  EXPECT_TRUE(s->idle());
}

TEST(Scheduler, RejectsNonPositiveLimits) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  EXPECT_THROW(Scheduler({.max_batch = 0, .max_tokens_per_step = 8}, book), Error);
  EXPECT_THROW(Scheduler({.max_batch = 2, .max_tokens_per_step = 0}, book), Error);
}

}  // namespace
}  // namespace tessera
