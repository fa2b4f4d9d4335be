// One sequence of a model on one device: its paged KV cache and the executor.
// feed() appends tokens and returns logits; this is what generate and bench drive.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/exec/graph_executor.h"
#include "core/kv/kv_cache.h"

namespace tessera {

struct SessionOptions {
  int32_t kv_block = 16;          // tokens per KV block
  int64_t n_ctx = 0;              // tokens the cache holds; 0 = the model's n_ctx
  int32_t max_step_tokens = 512;  // longer prompts run in chunks of this many tokens
};

class Session {
 public:
  // `model` and `backend` must outlive the session.
  Session(const Model& model, const Backend& backend, SessionOptions options);

  // Runs `tokens` as the next tokens of the sequence and returns the logits of the
  // last `n_logits` of them: [n_logits, n_vocab]. Throws when the context is full.
  const std::vector<float>& feed(std::span<const int32_t> tokens, int32_t n_logits = 1);

  int64_t n_past() const;
  int64_t n_ctx() const { return n_ctx_; }
  int64_t n_vocab() const { return n_vocab_; }
  // Forgets the sequence (frees its KV blocks); the next feed starts at position 0.
  void reset();
  const GraphExecutor& executor() const { return *executor_; }

 private:
  void run_chunk(std::span<const int32_t> tokens, int32_t n_logits);

  int64_t n_ctx_;
  int64_t n_vocab_;
  int32_t max_step_tokens_;
  KvCacheBook book_;
  SeqId seq_;
  std::unique_ptr<GraphExecutor> executor_;
  StepBatch batch_;
  std::vector<float> logits_;
};

}  // namespace tessera
