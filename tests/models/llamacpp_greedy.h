// llama.cpp's greedy continuations (tests/fixtures/llamacpp/*.greedy.json, written by
// tools/fixtures/make_llamacpp_fixtures.sh) and the check every backend is held to along
// them; see llamacpp_fixtures_test.cpp for why near-ties are exempt.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"

namespace tessera::test {

// A top-1 minus top-2 logit gap that rounding differences can flip (llamacpp_fixtures_test.cpp).
constexpr float kTie = 1.0f;

struct GreedyCase {
  std::string prompt;
  std::vector<int32_t> prompt_ids;
  std::vector<int32_t> ids;  // llama.cpp's greedy continuation
  std::vector<float> gaps;   // llama.cpp's top-1 minus top-2 logit at each step
};

inline std::vector<GreedyCase> read_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<GreedyCase> cases;
  for (const auto& c : doc.at("cases")) {
    cases.push_back({c.at("prompt"), c.at("prompt_ids").get<std::vector<int32_t>>(),
                     c.at("ids").get<std::vector<int32_t>>(), c.at("gaps").get<std::vector<float>>()});
  }
  return cases;
}

// One backend along llama.cpp's continuation; returns "" or why the backend is absent.
inline std::string teacher_forced(const PluginHost& host, const std::string& backend_name, const Model& model,
                           const std::vector<GreedyCase>& cases, const std::string& label) {
  if (!host.find(backend_name)) return "no " + backend_name + " plugin";
  Backend backend;
  try {
    backend = open_backend(host, backend_name, 2);
  } catch (const std::exception& e) {
    return e.what();
  }
  int steps = 0, equal = 0;
  for (const GreedyCase& c : cases) {
    Session session(model, backend, SessionOptions{.kv_block = 16, .n_ctx = 512, .max_step_tokens = 512});
    std::vector<float> logits = session.feed(c.prompt_ids, 1);
    for (size_t j = 0; j < c.ids.size(); ++j) {
      const auto best = std::max_element(logits.begin(), logits.end());
      const auto ours = static_cast<int32_t>(best - logits.begin());
      ++steps;
      if (ours == c.ids[j]) {
        ++equal;
      } else {
        EXPECT_LT(c.gaps[j], kTie) << "\"" << c.prompt << "\" step " << j << ": Tessera " << ours << ", llama.cpp "
                                   << c.ids[j] << " with a gap of " << c.gaps[j];
        EXPECT_LE(*best - logits[static_cast<size_t>(c.ids[j])], kTie) << "\"" << c.prompt << "\" step " << j;
      }
      logits = session.feed(std::span<const int32_t>(&c.ids[j], 1), 1);
    }
  }
  std::printf("%s on %s: argmax equal to llama.cpp's at %d of %d steps\n", label.c_str(), backend_name.c_str(), equal,
              steps);
  return "";
}

}  // namespace tessera::test
