#include "core/engine/generator.h"

#include <chrono>
#include <span>

#include "core/sampling/sampler.h"
#include "core/tokenizer/token_stream.h"
#include "core/util/error.h"

namespace tessera {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GenerateResult generate(Session& session, const Tokenizer& tokenizer, const std::string& prompt,
                        const GenerateOptions& options, const std::function<void(const std::string&)>& on_text) {
  GenerateResult result;
  result.prompt_ids = tokenizer.encode(prompt, tokenizer.add_bos());
  if (result.prompt_ids.empty()) throw Error("the prompt is empty and the vocabulary has no BOS token to start from");
  if (options.n_predict < 0) throw Error("the number of tokens to predict must be >= 0");

  Sampler sampler(options.sampling);
  result.seed = sampler.seed();
  session.reset();
  std::vector<int32_t> history = result.prompt_ids;
  TokenStreamDecoder stream(tokenizer, result.prompt_ids.back());
  auto emit = [&](const std::string& piece) {
    if (piece.empty()) return;
    result.text += piece;
    if (on_text) on_text(piece);
  };

  const auto t_prefill = std::chrono::steady_clock::now();
  const std::vector<float>* logits = &session.feed(result.prompt_ids);
  result.prefill_ms = ms_since(t_prefill);
  result.stop_reason = "length";

  const auto t_decode = std::chrono::steady_clock::now();
  for (int32_t i = 0; i < options.n_predict; ++i) {
    const int32_t token = sampler.sample(std::span<const float>(*logits), history);
    if (tokenizer.ends_text(token) && !options.ignore_eos) {
      result.stop_reason = "eos";
      break;
    }
    result.generated_ids.push_back(token);
    history.push_back(token);
    emit(stream.push(token));
    if (i + 1 == options.n_predict) break;
    if (session.n_past() >= session.n_ctx()) {
      result.stop_reason = "context";
      break;
    }
    logits = &session.feed(std::span<const int32_t>(&token, 1));
  }
  emit(stream.finish());
  result.decode_ms = ms_since(t_decode);
  return result;
}

}  // namespace tessera
