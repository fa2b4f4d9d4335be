// A WeightFile made in memory for DSL tests: metadata and tensor shapes only (no
// data), including one shaped like stories260K's GGUF (see testdata/stories260K/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/weights/weight_file.h"

namespace tessera::test {

class FakeWeightFile : public WeightFile {
 public:
  // `format` is what format() reports: "gguf", or "hf" to stand for a Hugging Face
  // folder (the DSL then reads hf: names and keys).
  explicit FakeWeightFile(std::string path = "fake.gguf", std::string format = "gguf")
      : path_(std::move(path)), format_(std::move(format)) {}

  const std::string& path() const override { return path_; }
  std::string format() const override { return format_; }
  const std::map<std::string, MetaValue>& metadata() const override { return meta_; }
  const std::vector<TensorView>& tensors() const override { return tensors_; }
  // A folder's metadata is its config.json.
  std::string metadata_path() const override { return format_ == "hf" ? path_ + "/config.json" : path_; }
  bool meta_is_null(const std::string& key) const override { return nulls_.count(key) > 0; }

  // GGUF integers are unsigned 32-bit; readers widen them to uint64.
  void set_uint(const std::string& key, uint64_t v) { set(key, v, 4); }
  void set_float(const std::string& key, double v) { set(key, v, 6); }
  // A config.json integer: signed, with no GGUF type code.
  void set_int(const std::string& key, int64_t v) { set(key, v, -1); }
  void set_string(const std::string& key, const std::string& v) { set(key, v, 8); }
  void set_bool(const std::string& key, bool v) { set(key, v, 7); }
  // A config.json number written with a fraction or exponent: a double, no GGUF type code.
  void set_double(const std::string& key, double v) { set(key, v, -1); }
  void set_array(const std::string& key, MetaArray v) { set(key, std::move(v), 9); }
  // A config.json null: present, with no value.
  void set_null(const std::string& key) {
    meta_.erase(key);
    nulls_.insert(key);
  }
  void add_tensor(const std::string& name, std::vector<int64_t> shape, DType dtype = DType::F32) {
    TensorView t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    tensors_.push_back(std::move(t));
  }
  void remove_tensor(const std::string& name) {
    std::erase_if(tensors_, [&](const TensorView& t) { return t.name == name; });
  }
  void remove_meta(const std::string& key) { meta_.erase(key); }

 private:
  template <typename T>
  void set(const std::string& key, T v, int gguf_type) {
    nulls_.erase(key);
    MetaValue m;
    m.value = std::move(v);
    m.gguf_type = gguf_type;
    meta_[key] = std::move(m);
  }

  std::string path_;
  std::string format_;
  std::map<std::string, MetaValue> meta_;
  std::set<std::string> nulls_;
  std::vector<TensorView> tensors_;
};

// The metadata and tensor shapes of stories260K.gguf: 5 layers, d_model 64, 8 heads
// sharing 4 KV heads, d_ff 172, vocab 512, all F32, context_length written as 128.
inline FakeWeightFile stories260k_fake() {
  FakeWeightFile f("stories260K.gguf");
  f.set_string("general.architecture", "llama");
  f.set_uint("llama.embedding_length", 64);
  f.set_uint("llama.feed_forward_length", 172);
  f.set_uint("llama.attention.head_count", 8);
  f.set_uint("llama.attention.head_count_kv", 4);
  f.set_uint("llama.block_count", 5);
  f.set_uint("llama.context_length", 128);
  f.set_uint("llama.rope.dimension_count", 8);
  f.set_float("llama.attention.layer_norm_rms_epsilon", 1e-5);
  f.add_tensor("token_embd.weight", {512, 64});
  f.add_tensor("output_norm.weight", {64});
  f.add_tensor("output.weight", {512, 64});
  for (int i = 0; i < 5; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    f.add_tensor(p + "attn_norm.weight", {64});
    f.add_tensor(p + "attn_q.weight", {64, 64});
    f.add_tensor(p + "attn_k.weight", {32, 64});
    f.add_tensor(p + "attn_v.weight", {32, 64});
    f.add_tensor(p + "attn_output.weight", {64, 64});
    f.add_tensor(p + "ffn_norm.weight", {64});
    f.add_tensor(p + "ffn_gate.weight", {172, 64});
    f.add_tensor(p + "ffn_up.weight", {172, 64});
    f.add_tensor(p + "ffn_down.weight", {64, 172});
  }
  return f;
}

}  // namespace tessera::test
