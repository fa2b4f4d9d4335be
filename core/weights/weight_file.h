// A weights file as the core sees it: typed metadata and named tensors whose bytes
// stay in the (memory-mapped) file. GGUF, llama2.c, safetensors files and Hugging
// Face model folders (config.json + safetensors) implement it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/util/mapped_file.h"

namespace tessera {

// One metadata value. Integers of every GGUF width are widened to int64/uint64 but
// keep their original GGUF type code in `gguf_type` so a writer can round-trip them.
struct MetaValue;
using MetaArray = std::vector<MetaValue>;
struct MetaValue {
  std::variant<bool, int64_t, uint64_t, double, std::string, MetaArray> value;
  int gguf_type = -1;  // GGUF type code (0..12), -1 when the file format has none
  // For arrays: the GGUF type code of the elements (so an empty array round-trips
  // too); -1 when unknown, and then a writer takes it from the elements.
  int gguf_elem_type = -1;

  bool is_integer() const;
  bool is_number() const;  // integer or float
  int64_t as_int() const;      // throws tessera::Error if not an integer (or bool)
  double as_float() const;     // integers convert; throws if not numeric
  const std::string& as_string() const;  // throws if not a string
  const MetaArray& as_array() const;     // throws if not an array
  std::string to_display() const;        // short human-readable form (arrays abbreviated)
  // Equal when the values and the GGUF type codes (elements included) are all equal.
  bool operator==(const MetaValue&) const = default;
};

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // outermost first (row-major): a matrix W[out, in] is {out, in}
  const void* data = nullptr;  // points into the mapped file
  uint64_t n_bytes = 0;
  int64_t n_elements() const;
};

class WeightFile {
 public:
  virtual ~WeightFile() = default;
  virtual const std::string& path() const = 0;  // the file, or the folder for "hf"
  virtual std::string format() const = 0;  // "gguf", "llama2c", "safetensors", "hf"
  virtual const std::map<std::string, MetaValue>& metadata() const = 0;
  virtual const std::vector<TensorView>& tensors() const = 0;
  // The file the metadata comes from, for messages: path(), or a Hugging Face
  // folder's FOLDER/config.json.
  virtual std::string metadata_path() const { return path(); }
  // Whether `key` is given with no value (a null of config.json): such a key is not in
  // metadata(), yet present. False by default (GGUF has no null).
  virtual bool meta_is_null(const std::string& key) const {
    (void)key;
    return false;
  }

  const MetaValue* find_meta(const std::string& key) const;  // nullptr if absent
  // The string under `key`, or nullopt when absent; throws tessera::Error naming the
  // file and the key when the value is of another kind:
  //   "m.gguf: metadata 'general.architecture' is an integer (0), not a string"
  std::optional<std::string> meta_string(const std::string& key) const;
  // nullptr if absent; finds the stacks stack_tensors made too.
  const TensorView* find_tensor(const std::string& name) const;

  // The tensors `pattern` names with "{*}" replaced by 0 .. count - 1, each of one shape
  // and dtype, stacked into one [count, ...] tensor named `pattern`: a copy, made once
  // and kept by the file (Hugging Face MoE checkpoints store each expert's matrix
  // apart; a model reads them as one [experts, rows, cols] weight). Throws
  // tessera::Error naming the first part that is missing or unlike part 0.
  const TensorView& stack_tensors(const std::string& pattern, int64_t count) const;
  // The names of the tensors read into stacks.
  const std::set<std::string>& stacked_parts() const { return stacked_parts_; }

 private:
  struct Stack {
    TensorView view;
    std::vector<std::byte> bytes;
  };
  // Made on demand by the const readers above (binding a model is what asks).
  mutable std::map<std::string, Stack> stacks_;
  mutable std::set<std::string> stacked_parts_;
};

// Opens a weights file, choosing the reader by its magic bytes (GGUF) or, for a
// llama2.c checkpoint, by the header. A directory, or its config.json,
// model.safetensors.index.json or a .safetensors file in it (by name or by its
// header), opens the Hugging Face model folder (HfFolder) of that directory.
// `tokenizer_path` is the llama2.c tokenizer (tok512.bin) and is ignored for the
// other formats. `residency` says how a single file (GGUF, llama2.c) is held
// (mapped_file.h); a model folder's files are always mapped. Throws tessera::Error
// naming the file.
std::unique_ptr<WeightFile> open_weight_file(const std::string& path, const std::string& tokenizer_path = "",
                                             FileResidency residency = FileResidency::kMapped);

}  // namespace tessera
