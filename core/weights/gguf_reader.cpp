// GGUF parsing: header, metadata key/value pairs, tensor infos, then placement of
// each tensor inside the data section. Layout (all little-endian):
//   "GGUF" u32 version | u64 n_tensors | u64 n_kv | n_kv × (string key, u32 type, value)
//   | n_tensors × (string name, u32 n_dims, u64 dims[n_dims] innermost first, u32 ggml
//   type, u64 offset) | padding to the alignment | data section.
#include "core/weights/gguf_reader.h"

#include <bit>
#include <cstring>
#include <set>

#include <tessera/kit/block_check.h>

#include "core/util/error.h"
#include "core/weights/byte_reader.h"
#include "core/weights/gguf_types.h"

namespace tessera {
namespace {

// Nested arrays deeper than this are refused: no real file nests them, and a crafted
// file could otherwise recurse deep enough to exhaust the stack.
constexpr int kMaxArrayDepth = 8;

// A name or key from the file as messages show it: control bytes escaped (\x1b), so a
// hostile file cannot write to the terminal through an error message.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7f) {
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

MetaValue read_value(ByteReader& r, int type, const std::string& what, int depth);

MetaValue read_array(ByteReader& r, const std::string& what, int depth) {
  const uint64_t at = r.offset();
  const auto elem_type = r.read<uint32_t>(what + " (array element type)");
  if (!gguf::is_valid_value_type(elem_type)) {
    r.fail(at, what + ": array has unknown element type " + std::to_string(elem_type));
  }
  if (elem_type == gguf::kArray && depth + 1 >= kMaxArrayDepth) {
    r.fail(at, what + ": arrays nested deeper than " + std::to_string(kMaxArrayDepth) +
                   " levels are not supported");
  }
  const auto count = r.read<uint64_t>(what + " (array length)");
  const uint64_t min_bytes = gguf::min_value_bytes(static_cast<int>(elem_type));
  if (count > r.remaining() / min_bytes) {
    r.fail(at + 4, what + ": array of " + std::to_string(count) + " " +
                       std::string(gguf::value_type_name(static_cast<int>(elem_type))) +
                       " values cannot fit in the " + std::to_string(r.remaining()) +
                       " bytes left in the file");
  }
  MetaArray items;
  items.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    items.push_back(read_value(r, static_cast<int>(elem_type), what, depth + 1));
  }
  MetaValue v{.value = std::move(items), .gguf_type = gguf::kArray};
  v.gguf_elem_type = static_cast<int>(elem_type);
  return v;
}

MetaValue read_value(ByteReader& r, int type, const std::string& what, int depth) {
  MetaValue v;
  v.gguf_type = type;
  switch (type) {
    case gguf::kUint8:
      v.value = uint64_t{r.read<uint8_t>(what)};
      break;
    case gguf::kInt8:
      v.value = int64_t{r.read<int8_t>(what)};
      break;
    case gguf::kUint16:
      v.value = uint64_t{r.read<uint16_t>(what)};
      break;
    case gguf::kInt16:
      v.value = int64_t{r.read<int16_t>(what)};
      break;
    case gguf::kUint32:
      v.value = uint64_t{r.read<uint32_t>(what)};
      break;
    case gguf::kInt32:
      v.value = int64_t{r.read<int32_t>(what)};
      break;
    case gguf::kUint64:
      v.value = r.read<uint64_t>(what);
      break;
    case gguf::kInt64:
      v.value = r.read<int64_t>(what);
      break;
    case gguf::kFloat32:
      v.value = double{r.read<float>(what)};
      break;
    case gguf::kFloat64:
      v.value = r.read<double>(what);
      break;
    case gguf::kBool:
      v.value = r.read<uint8_t>(what) != 0;
      break;
    case gguf::kString:
      v.value = std::string(r.read_string(what));
      break;
    case gguf::kArray:
      return read_array(r, what, depth);
    default:
      r.fail(r.offset(), what + ": unknown value type " + std::to_string(type));
  }
  return v;
}

struct Header {
  uint32_t version;
  uint64_t n_tensors;
  uint64_t n_kv;
};

Header read_header(ByteReader& r) {
  const auto magic = r.read<uint32_t>("magic");
  if (magic != gguf::kMagic) {
    r.fail(0, "not a GGUF file: magic is '" +
                  printable_bytes({reinterpret_cast<const uint8_t*>(&magic), 4}) +
                  "', expected 'GGUF'");
  }
  const auto version = r.read<uint32_t>("version");
  if (__builtin_bswap32(version) >= 1 && __builtin_bswap32(version) <= 3) {
    r.fail(4, "big-endian GGUF files are not supported (this reader handles little-endian ones)");
  }
  if (version == 1) {
    r.fail(4,
           "GGUF version 1 is not supported (only versions 2 and 3; convert the file "
           "with a current GGUF tool)");
  }
  if (version != 2 && version != 3) {
    r.fail(4,
           "GGUF version " + std::to_string(version) + " is not supported (only versions 2 and 3)");
  }
  const auto n_tensors = r.read<uint64_t>("tensor count");
  const auto n_kv = r.read<uint64_t>("metadata count");
  // Each key/value takes at least 13 bytes and each tensor info at least 24: counts
  // that cannot fit in the file are lies, refused before anything is allocated.
  if (n_kv > r.remaining() / 13) {
    r.fail(16, "header claims " + std::to_string(n_kv) + " metadata entries, more than the " +
                   std::to_string(r.remaining()) + " bytes left in the file can hold");
  }
  if (n_tensors > r.remaining() / 24) {
    r.fail(8, "header claims " + std::to_string(n_tensors) + " tensors, more than the " +
                  std::to_string(r.remaining()) + " bytes left in the file can hold");
  }
  return {version, n_tensors, n_kv};
}

uint64_t checked_alignment(ByteReader& r, uint64_t at, const MetaValue& v) {
  if (v.gguf_type != gguf::kUint32) {
    r.fail(at, std::string(gguf::kAlignmentKey) + " must be a uint32, found " +
                   std::string(gguf::value_type_name(v.gguf_type)));
  }
  const uint64_t alignment = std::get<uint64_t>(v.value);
  if (alignment == 0 || !std::has_single_bit(alignment)) {
    r.fail(at, std::string(gguf::kAlignmentKey) + " must be a power of two, found " +
                   std::to_string(alignment));
  }
  return alignment;
}

// A tensor info as stored, before its data is located.
struct TensorInfo {
  TensorView view;        // name, dtype, shape, n_bytes; data set later
  uint64_t offset;        // relative to the data section
  uint64_t offset_field;  // file offset of the offset field, for messages
};

// Each tensor's data follows the previous one's at the alignment, in the order of the
// tensor list, as GGUF writers lay them out (and llama.cpp requires): so no two tensors
// share bytes, and a tensor whose type or shape was changed (its size with it) shows as
// a gap or an overlap at its neighbour. After the last one, only padding may remain.
void check_tensor_order(ByteReader& r, const std::vector<TensorInfo>& infos, uint64_t data_offset, uint64_t alignment,
                        uint64_t file_size) {
  uint64_t expected = 0;  // where the next tensor's data must start, relative to the data section
  const TensorInfo* previous = nullptr;
  const auto range = [&](const TensorInfo& t) {
    return "[" + std::to_string(data_offset + t.offset) + ", " + std::to_string(data_offset + t.offset + t.view.n_bytes) + ")";
  };
  for (const TensorInfo& info : infos) {
    if (info.offset != expected) {
      const std::string where = "tensor " + quoted(info.view.name) + " data " + range(info) + " ";
      if (previous == nullptr) {
        r.fail(info.offset_field, where + "does not start the data section (offset " + std::to_string(info.offset) +
                                      ", expected 0)");
      }
      r.fail(info.offset_field,
             where + (info.offset < expected ? "overlaps" : "leaves a gap of " + std::to_string(info.offset - expected) +
                                                             " bytes after") +
                 " tensor " + quoted(previous->view.name) + " " + range(*previous) +
                 ": a tensor's type, shape or offset is wrong (each tensor's data follows the previous one's at "
                 "the alignment " + std::to_string(alignment) + ")");
    }
    if (info.view.n_bytes > UINT64_MAX - info.offset - alignment) break;  // the extent check reports it
    expected = gguf::align_up(info.offset + info.view.n_bytes, alignment);
    previous = &info;
  }
  if (previous == nullptr) return;
  const uint64_t end = data_offset + previous->offset + previous->view.n_bytes;
  if (end <= file_size && file_size - end >= alignment) {
    r.fail(previous->offset_field, "the file has " + std::to_string(file_size - end) + " bytes after the data of " +
                                       "its last tensor " + quoted(previous->view.name) + " " + range(*previous) +
                                       ": a tensor's type or shape is wrong (its data is larger than declared)");
  }
}

std::vector<int64_t> read_shape(ByteReader& r, const std::string& name) {
  const uint64_t at = r.offset();
  const auto n_dims = r.read<uint32_t>("dimension count of tensor " + quoted(name));
  if (n_dims > gguf::kMaxDims) {
    r.fail(at, "tensor " + quoted(name) + " has " + std::to_string(n_dims) +
                   " dimensions (at most " + std::to_string(gguf::kMaxDims) + ")");
  }
  std::vector<int64_t> shape(n_dims);
  int64_t n_elements = 1;
  for (uint32_t i = 0; i < n_dims; ++i) {
    const uint64_t dim_at = r.offset();
    const auto dim = r.read<uint64_t>("dimensions of tensor " + quoted(name));
    if (dim == 0 || dim > static_cast<uint64_t>(INT64_MAX)) {
      r.fail(dim_at, "tensor " + quoted(name) + " dimension " + std::to_string(i) + " is " +
                         (dim == 0 ? "0" : std::to_string(static_cast<int64_t>(dim))) +
                         " (must be positive)");
    }
    if (__builtin_mul_overflow(n_elements, static_cast<int64_t>(dim), &n_elements)) {
      r.fail(dim_at, "tensor " + quoted(name) + " element count overflows 64 bits");
    }
    shape[n_dims - 1 - i] = static_cast<int64_t>(dim);  // GGUF lists innermost first
  }
  return shape;
}

TensorInfo read_tensor_info(ByteReader& r, uint64_t index) {
  TensorInfo info{};
  const uint64_t name_at = r.offset();
  info.view.name = std::string(r.read_string("name of tensor #" + std::to_string(index)));
  const std::string& name = info.view.name;
  if (name.empty()) r.fail(name_at, "tensor #" + std::to_string(index) + " has an empty name");
  info.view.shape = read_shape(r, name);

  const uint64_t type_at = r.offset();
  const auto type = r.read<uint32_t>("type of tensor " + quoted(name));
  const std::optional<DType> dtype = gguf::dtype_from_ggml(type);
  if (!dtype) {
    r.fail(type_at, "tensor " + quoted(name) + " has type " + gguf::describe_ggml_type(type) +
                        ", which is not supported (supported: " + gguf::supported_ggml_types() + ")");
  }
  info.view.dtype = *dtype;
  const int64_t inner = info.view.shape.empty() ? 1 : info.view.shape.back();
  const int64_t block = dtype_block_elems(*dtype);
  if (inner % block != 0) {
    r.fail(type_at, "tensor " + quoted(name) + " innermost dimension " + std::to_string(inner) +
                        " is not a multiple of the " + std::string(dtype_name(*dtype)) +
                        " block size " + std::to_string(block));
  }
  const int64_t n_blocks = info.view.n_elements() / block;
  int64_t n_bytes = 0;
  if (__builtin_mul_overflow(n_blocks, dtype_block_bytes(*dtype), &n_bytes)) {
    r.fail(type_at, "tensor " + quoted(name) + " byte size overflows 64 bits");
  }
  info.view.n_bytes = static_cast<uint64_t>(n_bytes);
  info.offset_field = r.offset();
  info.offset = r.read<uint64_t>("data offset of tensor " + quoted(name));
  return info;
}

// Every block's scales must be finite: a NaN or infinite scale would give a silently
// wrong answer at the first matmul that reads it.
void check_scales(ByteReader& r, const TensorView& t, uint64_t start) {
  if (!dtype_is_quantized(t.dtype)) return;
  const int64_t n_blocks = t.n_elements() / dtype_block_elems(t.dtype);
  const kit::BadScale bad = kit::first_nonfinite_scale(to_abi(t.dtype), t.data, n_blocks);
  if (bad.block < 0) return;
  const int64_t row_blocks = t.shape.back() / dtype_block_elems(t.dtype);
  r.fail(start + static_cast<uint64_t>(bad.byte_offset),
         "tensor " + quoted(t.name) + " block " + std::to_string(bad.block) + " (row " +
             std::to_string(bad.block / row_blocks) + ") has a non-finite scale " + bad.field + " = " +
             std::to_string(bad.value));
}

}  // namespace

bool GgufFile::has_magic(std::span<const uint8_t> bytes) {
  uint32_t magic = 0;
  if (bytes.size() < sizeof magic) return false;
  std::memcpy(&magic, bytes.data(), sizeof magic);
  return magic == gguf::kMagic;
}

std::unique_ptr<GgufFile> GgufFile::open(const std::string& path) { return open(MappedFile(path)); }

std::unique_ptr<GgufFile> GgufFile::open(MappedFile file) {
  std::unique_ptr<GgufFile> gguf(new GgufFile(std::move(file)));
  gguf->parse();
  return gguf;
}

void GgufFile::parse() {
  ByteReader r(file_.bytes(), file_.path());
  const Header header = read_header(r);
  version_ = header.version;

  alignment_ = gguf::kDefaultAlignment;
  for (uint64_t i = 0; i < header.n_kv; ++i) {
    const uint64_t key_at = r.offset();
    std::string key(r.read_string("key #" + std::to_string(i)));
    const std::string what = "value of key " + quoted(key);
    const uint64_t type_at = r.offset();
    const auto type = r.read<uint32_t>("type of key " + quoted(key));
    if (!gguf::is_valid_value_type(type)) {
      r.fail(type_at, "key " + quoted(key) + " has unknown value type " + std::to_string(type));
    }
    MetaValue value = read_value(r, static_cast<int>(type), what, 0);
    if (key == gguf::kAlignmentKey) alignment_ = checked_alignment(r, type_at, value);
    if (!metadata_.emplace(key, std::move(value)).second) {
      r.fail(key_at, "duplicate key " + quoted(key));
    }
  }

  std::vector<TensorInfo> infos;
  infos.reserve(static_cast<size_t>(header.n_tensors));
  std::set<std::string> names;
  for (uint64_t i = 0; i < header.n_tensors; ++i) {
    const uint64_t name_at = r.offset();
    infos.push_back(read_tensor_info(r, i));
    if (!names.insert(infos.back().view.name).second) {
      r.fail(name_at, "duplicate tensor name " + quoted(infos.back().view.name));
    }
  }

  data_offset_ = gguf::align_up(r.offset(), alignment_);
  const uint64_t file_size = file_.size();
  tensors_.reserve(infos.size());
  for (TensorInfo& info : infos) {
    const std::string& name = info.view.name;
    if (info.offset % alignment_ != 0) {
      r.fail(info.offset_field,
             "tensor " + quoted(name) + " data offset " + std::to_string(info.offset) +
                 " is not a multiple of the alignment " + std::to_string(alignment_));
    }
    if (info.offset > file_size) {
      r.fail(info.offset_field,
             "tensor " + quoted(name) + " data offset " + std::to_string(info.offset) +
                 " runs past the end of the file (" + std::to_string(file_size) + " bytes)");
    }
    const uint64_t start = data_offset_ + info.offset;  // both <= file size: no overflow
    if (start > file_size || info.view.n_bytes > file_size - start) {
      r.fail(info.offset_field,
             "tensor " + quoted(name) + " data [offset " + std::to_string(start) + ", " +
                 std::to_string(info.view.n_bytes) + " bytes] runs past the end of the file (" +
                 std::to_string(file_size) + " bytes)");
    }
  }
  check_tensor_order(r, infos, data_offset_, alignment_, file_size);
  for (TensorInfo& info : infos) {
    const uint64_t start = data_offset_ + info.offset;
    info.view.data = file_.data() + start;
    check_scales(r, info.view, start);
    tensors_.push_back(std::move(info.view));
  }
}

}  // namespace tessera
