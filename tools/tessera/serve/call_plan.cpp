#include "tools/tessera/serve/call_plan.h"

#include <chrono>
#include <random>

#include "tools/tessera/serve/api_error.h"
#include "tools/tessera/serve/prompt_builder.h"

namespace tessera::serve {
namespace {

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ResponseHead head_for(const ServedModel& model, const std::string& prefix) {
  return ResponseHead{new_response_id(prefix), unix_seconds(), model.id};
}

// n choices of one prompt, numbered from `first_index`.
void add_choices(CallPlan& plan, const std::vector<int32_t>& ids, int32_t max_tokens, int32_t first_index,
                 const std::vector<int32_t>& stop_tokens, const std::string& echo) {
  for (int32_t k = 0; k < plan.params.n; ++k) {
    PlannedChoice c;
    c.index = first_index + k;
    c.request = engine_request(ids, plan.params, max_tokens, c.index, stop_tokens);
    c.echo = echo;
    plan.choices.push_back(std::move(c));
  }
}

}  // namespace

std::string new_response_id(const std::string& prefix) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string id = prefix + "-";
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(rng)];
  return id;
}

CallPlan plan_chat_call(const ServedModel& model, const ChatCompletionRequest& request) {
  check_model_name(model, request.model);
  CallPlan plan;
  plan.endpoint = Endpoint::Chat;
  plan.head = head_for(model, "chatcmpl");
  plan.params = request.params;
  const std::vector<int32_t> ids = chat_prompt_ids(model, request.messages);
  const int32_t max_tokens = resolve_max_tokens(model, static_cast<int64_t>(ids.size()), request.params.max_tokens, -1);
  plan.prompt_tokens = static_cast<int64_t>(ids.size());
  add_choices(plan, ids, max_tokens, 0, model.chat_format->stop_tokens(), "");
  return plan;
}

CallPlan plan_completion_call(const ServedModel& model, const CompletionRequest& request) {
  check_model_name(model, request.model);
  if (request.echo && request.params.logprobs >= 0) {
    throw invalid_request("'echo' with 'logprobs' is not supported by this server (it computes no prompt logprobs)",
                          "echo");
  }
  CallPlan plan;
  plan.endpoint = Endpoint::Completion;
  plan.head = head_for(model, "cmpl");
  plan.params = request.params;
  for (size_t p = 0; p < request.prompts.size(); ++p) {
    const PromptInput& prompt = request.prompts[p];
    const std::vector<int32_t> ids = completion_prompt_ids(model, prompt);
    const int32_t max_tokens = resolve_max_tokens(model, static_cast<int64_t>(ids.size()), request.params.max_tokens,
                                                  kDefaultCompletionTokens);
    plan.prompt_tokens += static_cast<int64_t>(ids.size());
    std::string echo;
    if (request.echo) echo = prompt.is_ids ? model.tokenizer->decode(prompt.ids) : prompt.text;
    add_choices(plan, ids, max_tokens, static_cast<int32_t>(p) * request.params.n, {}, echo);
  }
  return plan;
}

}  // namespace tessera::serve
