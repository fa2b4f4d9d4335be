// A Hugging Face reference fixture of tests/fixtures/hf/<name>: the model folder and the
// logits transformers computed for a few token sequences (see tools/fixtures/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/testdata.h"

namespace tessera::test {

struct HfSequence {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;  // [tokens][n_vocab]
};

struct HfFixture {
  std::string folder;
  std::string model_class;  // "LlamaForCausalLM"
  std::vector<HfSequence> sequences;
};

// A fixture's name as a gtest parameter name ('-' is not allowed there).
inline std::string fixture_test_name(std::string fixture) {
  std::replace(fixture.begin(), fixture.end(), '-', '_');
  return fixture;
}

inline std::string hf_fixture_folder(const std::string& name) {
  return source_path("tests/fixtures/hf/" + name);
}

inline HfFixture load_hf_fixture(const std::string& name) {
  HfFixture f;
  f.folder = hf_fixture_folder(name);
  std::ifstream in(f.folder + "/logits.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  f.model_class = j.at("class").get<std::string>();
  for (const auto& s : j.at("sequences")) {
    f.sequences.push_back({s.at("tokens").get<std::vector<int32_t>>(),
                           s.at("logits").get<std::vector<std::vector<float>>>()});
  }
  return f;
}

}  // namespace tessera::test
