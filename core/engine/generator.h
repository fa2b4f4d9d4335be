// Text generation on a session: tokenize the prompt, prefill, then sample and decode
// token by token, streaming text as it completes, until a stop condition.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/engine/session.h"
#include "core/sampling/sampling_params.h"
#include "core/tokenizer/tokenizer.h"

namespace tessera {

struct GenerateOptions {
  int32_t n_predict = 128;  // new tokens at most
  SamplingParams sampling;
  bool ignore_eos = false;  // keep going through end-of-text tokens
};

struct GenerateResult {
  std::vector<int32_t> prompt_ids;     // BOS first when the vocabulary adds one
  std::vector<int32_t> generated_ids;  // the stop token is not included
  std::string text;                    // the generated text (without the prompt)
  std::string stop_reason;             // "length", "eos", "context"
  double prefill_ms = 0;               // prompt processing, up to the first token's logits
  double decode_ms = 0;                // all later tokens
  uint64_t seed = 0;                   // the sampler's seed (for --seed replay)
};

// Generation stops at n_predict tokens, at the end of the context, or when EOS (or a
// BOS, which starts a new document) is sampled, unless ignore_eos. `on_text` receives
// each piece of text as soon as it is complete UTF-8.
GenerateResult generate(Session& session, const Tokenizer& tokenizer, const std::string& prompt,
                        const GenerateOptions& options,
                        const std::function<void(const std::string&)>& on_text = {});

}  // namespace tessera
