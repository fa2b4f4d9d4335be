// Helpers for the Engine tests: a loaded model on the CPU backend, the reference
// output of a prompt run alone through a Session, and a batch run through an Engine.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/engine/generator.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "support/testdata.h"

namespace tessera::test {

struct LoadedModel {
  PluginHost host{std::vector<std::string>{plugin_dir()}};
  Backend backend = open_backend(host, "cpu", 2);
  std::unique_ptr<Model> model;

  LoadedModel(const std::string& weights_path, const std::string& arch_path, DType kv_dtype = DType::F32,
              const std::string& tokenizer_path = "") {
    dsl::ModelSpec spec;
    spec.weights_path = weights_path;
    spec.tokenizer_path = tokenizer_path;
    spec.arch_path = arch_path;
    spec.kv_dtype = kv_dtype;
    model = dsl::load_model(spec);
  }
};

struct Prompt {
  std::string text;
  int32_t max_tokens = 32;
};

inline SamplingParams greedy() {
  SamplingParams p;
  p.temperature = 0;
  return p;
}

// The prompt run alone, one token at a time after its prefill, through a Session:
// the path the batched engine must agree with.
inline GenerateResult run_alone(const LoadedModel& m, const Prompt& p, const SamplingParams& sampling,
                                bool ignore_eos = false) {
  Session session(*m.model, m.backend, SessionOptions{.kv_block = 16, .n_ctx = 0, .max_step_tokens = 512});
  GenerateOptions options;
  options.n_predict = p.max_tokens;
  options.sampling = sampling;
  options.ignore_eos = ignore_eos;
  return generate(session, m.model->tokenizer(), p.text, options);
}

inline Request request_of(const Prompt& p, const SamplingParams& sampling, bool ignore_eos = false) {
  Request r;
  r.prompt = p.text;
  r.max_tokens = p.max_tokens;
  r.sampling = sampling;
  r.stop.ignore_eos = ignore_eos;
  return r;
}

// Submits every request, steps until idle (calling `before_step` before each step,
// when given), and returns the results by request id.
inline std::map<RequestId, RequestResult> run_batch(Engine& engine, std::vector<Request> requests,
                                                    const std::function<void()>& before_step = {}) {
  auto results = std::make_shared<std::map<RequestId, RequestResult>>();
  for (Request& r : requests) {
    r.on_event = [results](const RequestEvent& e) {
      if (e.finished()) (*results)[e.id] = *e.result;
    };
    engine.submit(std::move(r));
  }
  engine.run_until_idle(before_step);
  return *results;
}

// No sequence holds a block once every request is over.
inline void expect_all_blocks_free(const Engine& engine) {
  const KvCacheStats s = engine.stats().kv;
  EXPECT_EQ(s.blocks_used, 0);
  EXPECT_EQ(s.n_sequences, 0);
  EXPECT_EQ(engine.kv_cache().free_blocks(), s.blocks_total);
}

}  // namespace tessera::test
