// Writer of GGUF v3 files: metadata of every GGUF type and tensors given as bytes or
// produced row by row by a callback (so multi-GB random models never sit in memory),
// written atomically. `tessera init` creates random-weight models with it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor/dtype.h"
#include "core/weights/weight_file.h"

namespace tessera {

class GgufWriter {
 public:
  // Fills rows [first_row, first_row + n_rows) of a tensor into `dst`, which holds
  // n_rows × row bytes; a row is the innermost dimension (whole Q8_0 blocks).
  using RowFiller = std::function<void(int64_t first_row, int64_t n_rows, void* dst)>;

  // Sets (or replaces) a metadata entry; entries are written in the order first set.
  // The value keeps its gguf_type (and gguf_elem_type for arrays); where they are -1
  // they are inferred: bool, int64, uint64, float64, string, array (element type from
  // the elements; int32 for an empty array). Throws tessera::Error naming the key if
  // the value cannot be stored as its type (out of range, mixed array elements, a
  // kind that does not match the type code) or general.alignment is not a uint32
  // power of two.
  void set_meta(const std::string& key, MetaValue value);
  // Copies every metadata entry of `source` whose key starts with `prefix`, types
  // included, so a tokenizer copied from one file into another round-trips exactly.
  void copy_meta(const WeightFile& source, const std::string& prefix = "");

  // Adds a tensor; `shape` is outermost first (1 to 4 positive dims, the innermost a
  // multiple of the dtype's block size). Throws on an invalid or duplicate name or
  // shape, or (bytes overloads) when the byte count does not match the shape.
  // Borrowed bytes: `data` must stay valid until write() returns.
  void add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                  const void* data, uint64_t n_bytes);
  void add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                  std::vector<uint8_t> bytes);
  void add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape, RowFiller fill);

  // Writes the file (GGUF v3, alignment 32 unless general.alignment says otherwise)
  // to PATH.tmp, then renames it to PATH. On any failure PATH is untouched, PATH.tmp
  // is removed and tessera::Error names the file and the cause (disk full, ...).
  // Exceptions thrown by a RowFiller propagate after the same clean-up.
  void write(const std::string& path) const;

  size_t meta_count() const { return metadata_.size(); }
  size_t tensor_count() const { return tensors_.size(); }

 private:
  struct PendingTensor {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;  // outermost first
    int64_t n_rows;
    int64_t row_bytes;
    RowFiller fill;
  };

  // Validates name and shape and appends a tensor without a filler yet.
  PendingTensor& add_pending(const std::string& name, DType dtype, std::vector<int64_t> shape);
  // Removes the tensor just added (t) and throws unless it needs exactly n_bytes.
  void check_byte_count(const PendingTensor& t, uint64_t n_bytes);

  std::vector<std::pair<std::string, MetaValue>> metadata_;  // in write order
  std::map<std::string, size_t> meta_index_;                 // key → position in metadata_
  std::vector<PendingTensor> tensors_;
  std::set<std::string> tensor_names_;
  uint64_t alignment_ = 32;
};

}  // namespace tessera
