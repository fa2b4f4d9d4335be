// Reader of GGUF v2/v3 files (little-endian): the metadata as MetaValues and the
// tensors as views into a read-only memory mapping. Every field is bounds-checked.
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

class GgufFile : public WeightFile {
 public:
  // Maps and parses `path`. Throws tessera::Error "PATH: <what> (offset N)" on any
  // malformed or unsupported content (v1 files, tensor types other than f32, f16,
  // bf16, q8_0, i32, data running past the end, duplicate names, ...).
  static std::unique_ptr<GgufFile> open(const std::string& path);
  // Same, over an already mapped file (its path names the file in messages).
  static std::unique_ptr<GgufFile> open(MappedFile file);
  // Whether `bytes` begin with the GGUF magic.
  static bool has_magic(std::span<const uint8_t> bytes);

  const std::string& path() const override { return file_.path(); }
  std::string format() const override { return "gguf"; }
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  const std::vector<TensorView>& tensors() const override { return tensors_; }

  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  // File offset where the tensor data section begins; tensor offsets count from here.
  uint64_t data_offset() const { return data_offset_; }

 private:
  explicit GgufFile(MappedFile file) : file_(std::move(file)) {}
  void parse();

  MappedFile file_;  // keeps every TensorView::data valid
  uint32_t version_ = 0;
  uint64_t alignment_ = 0;
  uint64_t data_offset_ = 0;
  std::map<std::string, MetaValue> metadata_;
  std::vector<TensorView> tensors_;
};

}  // namespace tessera
