#include "tools/tessera/serve/choice_state.h"

namespace tessera::serve {

std::string api_finish_reason(FinishReason reason) {
  switch (reason) {
    case FinishReason::Eos:
    case FinishReason::StopToken:
    case FinishReason::StopText:
      return "stop";
    case FinishReason::Length:
    case FinishReason::Context:
      return "length";
    case FinishReason::Cancelled:
    case FinishReason::Error:
      return "";
  }
  return "";
}

ChoiceState::ChoiceState(const Tokenizer& tokenizer, int32_t index, int32_t last_prompt_token, bool logprobs)
    : tokenizer_(tokenizer), index_(index), previous_(last_prompt_token), keep_logprobs_(logprobs) {}

LogprobEntry ChoiceState::entry(const TokenLogprobs& logprobs) const {
  LogprobEntry e;
  e.token = tokenizer_.token_to_piece(logprobs.chosen.token, previous_);
  e.logprob = logprobs.chosen.logprob;
  for (const TokenLogprob& t : logprobs.top)
    e.top.emplace_back(tokenizer_.token_to_piece(t.token, previous_), t.logprob);
  return e;
}

std::optional<LogprobEntry> ChoiceState::add(const RequestEvent& event) {
  text_ += event.text;
  if (event.finished()) {
    result_ = event.result;
    return std::nullopt;
  }
  std::optional<LogprobEntry> e;
  if (keep_logprobs_ && event.logprobs) {
    e = entry(*event.logprobs);
    logprobs_.push_back(*e);
  }
  previous_ = event.token;
  return e;
}

ChoiceOutput ChoiceState::output(const std::string& prefix) const {
  ChoiceOutput out;
  out.index = index_;
  out.text = prefix + text_;
  out.finish_reason = result_ ? api_finish_reason(result_->finish) : "";
  if (keep_logprobs_) out.logprobs = logprobs_;
  out.text_offset = static_cast<int64_t>(prefix.size());
  return out;
}

}  // namespace tessera::serve
