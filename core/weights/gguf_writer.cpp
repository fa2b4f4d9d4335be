// GGUF v3 writing: metadata is type-checked when set and encoded at write time; the
// header (key/values, tensor infos with aligned offsets) is built in memory, then
// each tensor's data is streamed in chunks of rows from its filler.
#include "core/weights/gguf_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/util/error.h"
#include "core/weights/atomic_output_file.h"
#include "core/weights/gguf_types.h"

namespace tessera {
namespace {

constexpr uint64_t kChunkBytes = 4 << 20;  // rows handed to a filler at a time
// GGML tools keep tensor names in a 64-byte buffer (63 characters + NUL).
constexpr size_t kMaxTensorName = 63;

int inferred_type(const MetaValue& v) {
  switch (v.value.index()) {
    case 0:
      return gguf::kBool;
    case 1:
      return gguf::kInt64;
    case 2:
      return gguf::kUint64;
    case 3:
      return gguf::kFloat64;
    case 4:
      return gguf::kString;
    default:
      return gguf::kArray;
  }
}

// Gives `v` (and its elements) concrete GGUF type codes, checking each value fits
// its type. `where` names the key (and element) in messages.
void resolve_types(MetaValue& v, const std::string& where) {
  if (v.gguf_type == -1) v.gguf_type = inferred_type(v);
  const int t = v.gguf_type;
  auto mismatch = [&](const std::string& why) {
    throw Error(where + ": cannot store " + v.to_display() + " as GGUF " +
                std::string(gguf::value_type_name(t)) + why);
  };
  if (!gguf::is_valid_value_type(t)) mismatch(" (unknown type code " + std::to_string(t) + ")");
  if (const auto* i = std::get_if<int64_t>(&v.value)) {
    if (!gguf::is_integer_type(t)) mismatch("");
    if (!gguf::signed_fits(t, *i)) mismatch(" (out of range)");
  } else if (const auto* u = std::get_if<uint64_t>(&v.value)) {
    if (!gguf::is_integer_type(t)) mismatch("");
    if (!gguf::unsigned_fits(t, *u)) mismatch(" (out of range)");
  } else if (std::holds_alternative<bool>(v.value) && t != gguf::kBool) {
    mismatch("");
  } else if (std::holds_alternative<double>(v.value) && !gguf::is_float_type(t)) {
    mismatch("");
  } else if (std::holds_alternative<std::string>(v.value) && t != gguf::kString) {
    mismatch("");
  } else if (auto* items = std::get_if<MetaArray>(&v.value)) {
    if (t != gguf::kArray) mismatch("");
    for (size_t i = 0; i < items->size(); ++i) {
      MetaValue& item = (*items)[i];
      if (item.gguf_type == -1 && v.gguf_elem_type != -1) item.gguf_type = v.gguf_elem_type;
      resolve_types(item, where + " element " + std::to_string(i));
      if (v.gguf_elem_type == -1) v.gguf_elem_type = item.gguf_type;
      if (item.gguf_type != v.gguf_elem_type) {
        throw Error(where + ": array mixes " +
                    std::string(gguf::value_type_name(v.gguf_elem_type)) + " and " +
                    std::string(gguf::value_type_name(item.gguf_type)) + " elements (element " +
                    std::to_string(i) + ")");
      }
    }
    if (v.gguf_elem_type == -1) v.gguf_elem_type = gguf::kInt32;
    if (!gguf::is_valid_value_type(v.gguf_elem_type)) {
      mismatch(" (unknown element type code " + std::to_string(v.gguf_elem_type) + ")");
    }
  }
}

// Little-endian serialisation of the header into memory.
class HeaderBuffer {
 public:
  template <typename T>
  void put(T value) {
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_string(std::string_view s) {
    put<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void put_value(const MetaValue& v);  // v has resolved types
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void put_integer(int type, const MetaValue& v);
  std::vector<uint8_t> bytes_;
};

void HeaderBuffer::put_integer(int type, const MetaValue& v) {
  // The value was range-checked by resolve_types, so the narrowing casts are exact.
  const uint64_t bits = std::holds_alternative<int64_t>(v.value)
                            ? static_cast<uint64_t>(std::get<int64_t>(v.value))
                            : std::get<uint64_t>(v.value);
  switch (gguf::fixed_value_bytes(type)) {
    case 1:
      put(static_cast<uint8_t>(bits));
      break;
    case 2:
      put(static_cast<uint16_t>(bits));
      break;
    case 4:
      put(static_cast<uint32_t>(bits));
      break;
    default:
      put(bits);
      break;
  }
}

void HeaderBuffer::put_value(const MetaValue& v) {
  const int t = v.gguf_type;
  if (gguf::is_integer_type(t)) {
    put_integer(t, v);
  } else if (t == gguf::kFloat32) {
    put(static_cast<float>(std::get<double>(v.value)));
  } else if (t == gguf::kFloat64) {
    put(std::get<double>(v.value));
  } else if (t == gguf::kBool) {
    put<uint8_t>(std::get<bool>(v.value) ? 1 : 0);
  } else if (t == gguf::kString) {
    put_string(std::get<std::string>(v.value));
  } else {
    const MetaArray& items = std::get<MetaArray>(v.value);
    put<uint32_t>(static_cast<uint32_t>(v.gguf_elem_type));
    put<uint64_t>(items.size());
    for (const MetaValue& item : items) put_value(item);
  }
}

}  // namespace

void GgufWriter::set_meta(const std::string& key, MetaValue value) {
  if (key.empty()) throw Error("GGUF metadata key must not be empty");
  resolve_types(value, "metadata key '" + key + "'");
  if (key == gguf::kAlignmentKey) {
    const bool is_u32 = value.gguf_type == gguf::kUint32;
    const uint64_t a = is_u32 ? std::get<uint64_t>(value.value) : 0;
    if (!is_u32 || a == 0 || !std::has_single_bit(a)) {
      throw Error("metadata key '" + key + "' must be a uint32 power of two, found " +
                  value.to_display());
    }
    alignment_ = a;
  }
  const auto [it, inserted] = meta_index_.emplace(key, metadata_.size());
  if (inserted) {
    metadata_.emplace_back(key, std::move(value));
  } else {
    metadata_[it->second].second = std::move(value);
  }
}

void GgufWriter::copy_meta(const WeightFile& source, const std::string& prefix) {
  for (const auto& [key, value] : source.metadata()) {
    if (key.compare(0, prefix.size(), prefix) == 0) set_meta(key, value);
  }
}

GgufWriter::PendingTensor& GgufWriter::add_pending(const std::string& name, DType dtype,
                                                   std::vector<int64_t> shape) {
  auto fail = [&](const std::string& why) { throw Error("GGUF tensor '" + name + "': " + why); };
  if (name.empty()) throw Error("GGUF tensor name must not be empty");
  if (name.size() > kMaxTensorName) {
    fail("name is longer than " + std::to_string(kMaxTensorName) +
         " bytes, the most GGML tools accept");
  }
  if (tensor_names_.count(name)) fail("a tensor of this name was already added");
  if (shape.empty() || shape.size() > gguf::kMaxDims) {
    fail(std::to_string(shape.size()) + " dimensions (must be 1 to " +
         std::to_string(gguf::kMaxDims) + ")");
  }
  int64_t n_rows = 1;  // every dimension but the innermost
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      fail("dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) +
           " (must be positive)");
    }
    if (i + 1 < shape.size() && __builtin_mul_overflow(n_rows, shape[i], &n_rows)) {
      fail("element count overflows");
    }
  }
  const int64_t block = dtype_block_elems(dtype);
  if (shape.back() % block != 0) {
    fail("innermost dimension " + std::to_string(shape.back()) + " is not a multiple of the " +
         std::string(dtype_name(dtype)) + " block size " + std::to_string(block));
  }
  const int64_t row_bytes = dtype_row_bytes(dtype, shape.back());
  int64_t total = 0;
  if (__builtin_mul_overflow(n_rows, row_bytes, &total)) fail("byte size overflows");
  tensor_names_.insert(name);
  tensors_.push_back({name, dtype, std::move(shape), n_rows, row_bytes, RowFiller()});
  return tensors_.back();
}

void GgufWriter::add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            RowFiller fill) {
  if (!fill) throw Error("GGUF tensor '" + name + "': no filler given");
  add_pending(name, dtype, std::move(shape)).fill = std::move(fill);
}

void GgufWriter::add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            const void* data, uint64_t n_bytes) {
  PendingTensor& t = add_pending(name, dtype, std::move(shape));
  check_byte_count(t, n_bytes);
  const auto* bytes = static_cast<const uint8_t*>(data);
  t.fill = [bytes, row_bytes = t.row_bytes](int64_t first, int64_t n, void* dst) {
    std::memcpy(dst, bytes + first * row_bytes, static_cast<size_t>(n * row_bytes));
  };
}

void GgufWriter::add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            std::vector<uint8_t> bytes) {
  PendingTensor& t = add_pending(name, dtype, std::move(shape));
  check_byte_count(t, bytes.size());
  // The filler owns the bytes (shared: std::function must be copyable).
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  t.fill = [owned, row_bytes = t.row_bytes](int64_t first, int64_t n, void* dst) {
    std::memcpy(dst, owned->data() + first * row_bytes, static_cast<size_t>(n * row_bytes));
  };
}

void GgufWriter::check_byte_count(const PendingTensor& t, uint64_t n_bytes) {
  const uint64_t expected = static_cast<uint64_t>(t.n_rows * t.row_bytes);
  if (n_bytes == expected) return;
  const std::string message = "GGUF tensor '" + t.name + "': " + std::to_string(n_bytes) +
                              " bytes given, but its " + std::string(dtype_name(t.dtype)) +
                              " shape needs " + std::to_string(expected);
  tensor_names_.erase(t.name);
  tensors_.pop_back();  // t is gone from here on
  throw Error(message);
}

void GgufWriter::write(const std::string& path) const {
  HeaderBuffer header;
  header.put<uint32_t>(gguf::kMagic);
  header.put<uint32_t>(gguf::kWriteVersion);
  header.put<uint64_t>(tensors_.size());
  header.put<uint64_t>(metadata_.size());
  for (const auto& [key, value] : metadata_) {
    header.put_string(key);
    header.put<uint32_t>(static_cast<uint32_t>(value.gguf_type));
    header.put_value(value);
  }
  std::vector<uint64_t> offsets;  // of each tensor, relative to the data section
  uint64_t data_size = 0;
  for (const PendingTensor& t : tensors_) {
    header.put_string(t.name);
    header.put<uint32_t>(static_cast<uint32_t>(t.shape.size()));
    for (auto d = t.shape.rbegin(); d != t.shape.rend(); ++d) {  // GGUF: innermost first
      header.put<uint64_t>(static_cast<uint64_t>(*d));
    }
    header.put<uint32_t>(gguf::ggml_from_dtype(t.dtype));
    offsets.push_back(data_size);
    header.put<uint64_t>(data_size);
    data_size =
        gguf::align_up(data_size + static_cast<uint64_t>(t.n_rows * t.row_bytes), alignment_);
  }

  AtomicOutputFile out(path);
  out.write(header.bytes().data(), header.bytes().size());
  const uint64_t data_start = gguf::align_up(out.written(), alignment_);
  std::vector<uint8_t> chunk;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const PendingTensor& t = tensors_[i];
    out.pad_to(data_start + offsets[i]);
    const int64_t rows_per_chunk =
        std::max<int64_t>(1, static_cast<int64_t>(kChunkBytes) / t.row_bytes);
    for (int64_t row = 0; row < t.n_rows; row += rows_per_chunk) {
      const int64_t n = std::min(rows_per_chunk, t.n_rows - row);
      chunk.assign(static_cast<size_t>(n * t.row_bytes), 0);
      t.fill(row, n, chunk.data());
      out.write(chunk.data(), chunk.size());
    }
  }
  // GGML readers load the data section padded to the alignment, the last tensor too.
  out.pad_to(data_start + data_size);
  out.commit();
}

}  // namespace tessera
