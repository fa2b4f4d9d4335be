// What a caller submits to the Engine (prompt, sampling, limits, stop conditions)
// and what streams back: one event per generated token, then a final one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sampling/logprobs.h"
#include "core/sampling/sampling_params.h"

namespace tessera {

using RequestId = int64_t;

struct StopConditions {
  bool ignore_eos = false;              // keep going through end-of-text (EOS, or a BOS starting a new text)
  std::vector<int32_t> stop_token_ids;  // stop at any of these (not part of the output)
  std::vector<std::string> stop_texts;  // stop once the text contains one; the text ends before it
};

enum class FinishReason {
  Length,     // max_tokens generated
  Eos,        // end-of-text token
  StopToken,  // one of stop_token_ids
  StopText,   // one of stop_texts
  Context,    // the sequence reached the context length
  Cancelled,  // Engine::cancel
  Error,      // a step computing it failed (a kernel, the device); RequestResult::error says how
};
// "length", "eos", "stop_token", "stop", "context", "cancelled", "error".
std::string_view finish_reason_name(FinishReason reason);

struct RequestEvent;

struct Request {
  std::vector<int32_t> prompt_ids;  // used as is when not empty
  std::string prompt;               // else tokenized, with BOS when the vocabulary adds one
  SamplingParams sampling;          // one sampler per request, seeded by sampling.seed
  int32_t max_tokens = 128;         // new tokens at most; 0 = only prefill the prompt
  StopConditions stop;
  // < 0: off. n >= 0: each token's event carries its log-probability and those of
  // the n most likely tokens, from the model's own distribution (log_softmax of the
  // raw logits, before the penalties, temperature and top-k/top-p/min-p filters).
  int32_t logprobs = -1;
  // Receives the request's events on the thread running Engine::step(), in order;
  // must not call step() and should return quickly. May be empty.
  std::function<void(const RequestEvent&)> on_event;
};

// The whole story of a finished request.
struct RequestResult {
  RequestId id = -1;
  std::vector<int32_t> prompt_ids;
  std::vector<int32_t> generated_ids;  // EOS and stop_token_ids excluded; tokens spelling a stop text kept
  std::string text;                    // generated text, ending before a stop text
  FinishReason finish = FinishReason::Length;
  std::string error;                   // FinishReason::Error: what failed (the kernel's message)
  uint64_t seed = 0;                   // the sampler's seed (for replay)
  int64_t cached_prompt_tokens = 0;    // prompt tokens the prefix cache spared at first admission
  int32_t preemptions = 0;             // times its KV blocks were taken back and recomputed
  double queue_ms = 0;                 // submission to first scheduled step
  double ttft_ms = 0;                  // submission to first token (to the end without tokens)
  double total_ms = 0;                 // submission to finish
  // Mean time per output token after the first: (total - ttft) / (generated - 1); 0 if < 2.
  double tpot_ms() const;
};

struct RequestEvent {
  RequestId id = -1;
  int32_t token = -1;  // the new token; -1 on the final event
  std::string text;    // text that became complete (may be empty)
  // With Request::logprobs >= 0, on token events: the token's log-probability and
  // the top alternatives (token_logprobs of the step's logits).
  std::optional<TokenLogprobs> logprobs;
  // Set on the final event only: the request is over and this is its result.
  std::shared_ptr<const RequestResult> result;
  bool finished() const { return result != nullptr; }
};

}  // namespace tessera
