// Reader of llama2.c legacy (version 0) checkpoints: a 7 × int32 header, then f32
// arrays grouped by kind. Presented exactly like the equivalent GGUF (llama.* keys,
// tokenizer.ggml.* keys from the tokenizer file, GGUF tensor names and shapes).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/util/mapped_file.h"
#include "core/weights/weight_file.h"

namespace tessera {

struct Llama2cConfig {
  int32_t dim = 0;
  int32_t hidden_dim = 0;
  int32_t n_layers = 0;
  int32_t n_heads = 0;
  int32_t n_kv_heads = 0;
  int32_t vocab_size = 0;  // always positive here (the header's absolute value)
  int32_t seq_len = 0;
  // True when the header's vocab_size is positive: the classifier is the embedding
  // matrix; otherwise a separate classifier follows the other arrays.
  bool shared_classifier = true;

  int64_t head_size() const { return dim / n_heads; }
  int64_t kv_dim() const { return n_kv_heads * head_size(); }
};

inline constexpr uint64_t kLlama2cHeaderBytes = 28;

// Reads the header at the start of `bytes` and checks it against their size. Returns
// "" and fills *config when this is a plausible legacy checkpoint of exactly the
// expected size; otherwise returns why not (no file name: callers add it).
std::string read_llama2c_header(std::span<const uint8_t> bytes, Llama2cConfig* config);

class Llama2cFile : public WeightFile {
 public:
  // Opens `checkpoint_path`; if `tokenizer_path` is not empty, also reads that
  // llama2.c tokenizer file (tok512.bin style) into the tokenizer.ggml.* keys.
  // Throws tessera::Error naming the offending file and the cause.
  static std::unique_ptr<Llama2cFile> open(const std::string& checkpoint_path,
                                           const std::string& tokenizer_path = "");
  static std::unique_ptr<Llama2cFile> open(MappedFile checkpoint,
                                           const std::string& tokenizer_path);

  const std::string& path() const override { return file_.path(); }
  std::string format() const override { return "llama2c"; }
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  const std::vector<TensorView>& tensors() const override { return tensors_; }
  const Llama2cConfig& config() const { return config_; }

 private:
  Llama2cFile(MappedFile file, const Llama2cConfig& config)
      : file_(std::move(file)), config_(config) {}
  void add_model_metadata();
  void add_tensors();

  MappedFile file_;  // keeps every TensorView::data valid
  Llama2cConfig config_;
  std::map<std::string, MetaValue> metadata_;
  std::vector<TensorView> tensors_;
};

}  // namespace tessera
