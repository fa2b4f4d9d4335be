// One choice of a call as its events arrive: the text so far, the logprob entries
// (token texts read from the tokenizer), and the result once it is over.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/request.h"
#include "core/tokenizer/tokenizer.h"
#include "tools/tessera/serve/api_response.h"

namespace tessera::serve {

// "stop" (end of text, a stop token or text) or "length" (max_tokens, the context);
// "" for Cancelled and Error, which are not finish reasons of the API.
std::string api_finish_reason(FinishReason reason);

class ChoiceState {
 public:
  // `tokenizer` must outlive the state. `last_prompt_token`: the token before the first
  // generated one (token texts depend on it). `logprobs`: entries are kept.
  ChoiceState(const Tokenizer& tokenizer, int32_t index, int32_t last_prompt_token, bool logprobs);

  // Takes the choice's next event; returns its logprob entry when logprobs are kept and
  // the event carries them.
  std::optional<LogprobEntry> add(const RequestEvent& event);

  int32_t index() const { return index_; }
  bool finished() const { return result_ != nullptr; }
  // Bytes of text so far (without an echo prefix).
  size_t text_size() const { return text_.size(); }
  // Set once finished().
  const RequestResult* result() const { return result_.get(); }
  // The whole choice: `prefix` (the prompt, for echo) and the text.
  ChoiceOutput output(const std::string& prefix = "") const;

 private:
  LogprobEntry entry(const TokenLogprobs& logprobs) const;

  const Tokenizer& tokenizer_;
  int32_t index_;
  int32_t previous_;  // the token before the next one
  bool keep_logprobs_;
  std::string text_;
  std::vector<LogprobEntry> logprobs_;
  std::shared_ptr<const RequestResult> result_;
};

}  // namespace tessera::serve
