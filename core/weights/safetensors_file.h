// Reader of one .safetensors file: a u64 little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the tensor data,
// served as views into a read-only memory mapping. Every field is checked.
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

class SafetensorsFile : public WeightFile {
 public:
  // Headers longer than this are refused as corrupt (the reference reader's limit).
  static constexpr uint64_t kMaxHeaderBytes = 100'000'000;

  // Maps and parses `path`. Throws tessera::Error "PATH: <what>" (with "(offset N)"
  // where a file position is known) on a truncated or oversized header, invalid JSON,
  // missing or mistyped fields, a dtype other than F32, F16, BF16, I32, negative
  // dimensions, data offsets reversed or outside the data section, a byte size that
  // is not shape × element size, overlapping tensors, duplicate names, or tensor data
  // not aligned to its element size.
  static std::unique_ptr<SafetensorsFile> open(const std::string& path);
  // Same, over an already mapped file (its path names the file in messages).
  static std::unique_ptr<SafetensorsFile> open(MappedFile file);
  // Whether `bytes` start like a safetensors file: a header length that fits in the
  // bytes, followed by '{'.
  static bool has_signature(std::span<const uint8_t> bytes);

  const std::string& path() const override { return file_.path(); }
  std::string format() const override { return "safetensors"; }
  // The "__metadata__" entries, each a string (safetensors allows nothing else).
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  // Sorted by name.
  const std::vector<TensorView>& tensors() const override { return tensors_; }

  // File offset where the data section begins (8 + header length); data_offsets in
  // the header count from here.
  uint64_t data_offset() const { return data_offset_; }

 private:
  explicit SafetensorsFile(MappedFile file) : file_(std::move(file)) {}
  void parse();

  MappedFile file_;  // keeps every TensorView::data valid
  uint64_t data_offset_ = 0;
  std::map<std::string, MetaValue> metadata_;
  std::vector<TensorView> tensors_;
};

}  // namespace tessera
