// A WeightFile made of metadata only, for tokenizer tests that need a vocabulary with
// a specific defect or a tiny hand-written vocabulary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/weights/weight_file.h"

namespace tessera::test {

class FakeWeightFile : public WeightFile {
 public:
  const std::string& path() const override { return path_; }
  std::string format() const override { return "fake"; }
  const std::map<std::string, MetaValue>& metadata() const override { return meta_; }
  const std::vector<TensorView>& tensors() const override { return tensors_; }

  FakeWeightFile& set(const std::string& key, MetaValue value) {
    meta_[key] = std::move(value);
    return *this;
  }
  FakeWeightFile& erase(const std::string& key) {
    meta_.erase(key);
    return *this;
  }

 private:
  std::string path_ = "fake.gguf";
  std::map<std::string, MetaValue> meta_;
  std::vector<TensorView> tensors_;
};

inline MetaValue meta_string(const std::string& s) { return MetaValue{s, 8}; }
inline MetaValue meta_u32(uint64_t v) { return MetaValue{v, 4}; }
inline MetaValue meta_bool(bool v) { return MetaValue{v, 7}; }

inline MetaValue meta_strings(const std::vector<std::string>& items) {
  MetaArray arr;
  for (const auto& s : items) arr.push_back(meta_string(s));
  return MetaValue{arr, 9};
}
inline MetaValue meta_floats(const std::vector<double>& items) {
  MetaArray arr;
  for (double d : items) arr.push_back(MetaValue{d, 6});
  return MetaValue{arr, 9};
}
inline MetaValue meta_ints(const std::vector<int64_t>& items) {
  MetaArray arr;
  for (int64_t i : items) arr.push_back(MetaValue{i, 5});
  return MetaValue{arr, 9};
}

// A complete, valid "llama" vocabulary of the given tokens (scores and types as given).
inline FakeWeightFile fake_llama_vocab(const std::vector<std::string>& tokens,
                                       const std::vector<double>& scores,
                                       const std::vector<int64_t>& types) {
  FakeWeightFile file;
  file.set("tokenizer.ggml.model", meta_string("llama"))
      .set("tokenizer.ggml.tokens", meta_strings(tokens))
      .set("tokenizer.ggml.scores", meta_floats(scores))
      .set("tokenizer.ggml.token_type", meta_ints(types));
  return file;
}

}  // namespace tessera::test
