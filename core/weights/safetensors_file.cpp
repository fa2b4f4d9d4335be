// Safetensors parsing: the header length, the JSON header (tensor entries and the
// optional "__metadata__"), then placement of each tensor inside the data section:
//   u64 header length N | N bytes of JSON (maybe padded with spaces) | data section.
// data_offsets [begin, end) count from the start of the data section.
#include "core/weights/safetensors_file.h"

#include <algorithm>
#include <cstring>

#include "core/util/error.h"
#include "core/weights/byte_reader.h"
#include "core/weights/json_text.h"
#include "core/weights/safetensors_dtype.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// A tensor as described by the header, before its data is located.
struct TensorEntry {
  TensorView view;  // name, dtype, shape, n_bytes; data set once placed
  uint64_t begin = 0;
  uint64_t end = 0;
};

// "[begin, end]", as data_offsets are written in the header.
std::string range(const TensorEntry& t) {
  return "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// Reads one description of a tensor; every failure names the file and the tensor.
class EntryReader {
 public:
  EntryReader(const std::string& label, const std::string& name, const Json& entry)
      : label_(label), name_(name), entry_(entry) {}

  TensorEntry read() {
    if (name_.empty()) fail("a tensor has an empty name");
    if (!entry_.is_object()) {
      fail("tensor " + in_quotes(name_) + " is described by " + json_kind(entry_) +
           ", not an object");
    }
    TensorEntry t;
    t.view.name = name_;
    t.view.dtype = read_dtype();
    t.view.shape = read_shape();
    read_offsets(&t);
    t.view.n_bytes = t.end - t.begin;
    check_byte_size(t);
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(label_ + ": " + what); }

  const Json& field(const char* key) const {
    const auto it = entry_.find(key);
    if (it == entry_.end()) fail("tensor " + in_quotes(name_) + " has no " + in_quotes(key));
    return *it;
  }

  DType read_dtype() const {
    const Json& dtype = field("dtype");
    if (!dtype.is_string()) {
      fail("tensor " + in_quotes(name_) + ": 'dtype' is " + json_kind(dtype) + ", not a string");
    }
    const std::string& text = dtype.get_ref<const std::string&>();
    const std::optional<DType> parsed = dtype_from_safetensors(text);
    if (!parsed) {
      fail("tensor " + in_quotes(name_) + " has dtype " + in_quotes(text) +
           ", which is not supported (supported: " + std::string(kSupportedSafetensorsDtypes) +
           ")");
    }
    return *parsed;
  }

  // A non-negative integer element of an array field ("shape", "data_offsets").
  uint64_t read_count(const Json& item, const char* key, size_t index) const {
    const std::string where =
        "tensor " + in_quotes(name_) + ": " + in_quotes(key) + " element " + std::to_string(index);
    if (item.is_number_unsigned()) return item.get<uint64_t>();
    if (item.is_number_integer()) {
      fail(where + " is " + std::to_string(item.get<int64_t>()) + " (must not be negative)");
    }
    fail(where + " is " + json_kind(item) + ", not an integer");
  }

  std::vector<int64_t> read_shape() const {
    const Json& shape = field("shape");
    if (!shape.is_array()) {
      fail("tensor " + in_quotes(name_) + ": 'shape' is " + json_kind(shape) + ", not an array");
    }
    std::vector<int64_t> dims;
    int64_t n_elements = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      const uint64_t dim = read_count(shape[i], "shape", i);
      if (dim > static_cast<uint64_t>(INT64_MAX) ||
          __builtin_mul_overflow(n_elements, static_cast<int64_t>(dim), &n_elements)) {
        fail("tensor " + in_quotes(name_) + " element count overflows 64 bits");
      }
      dims.push_back(static_cast<int64_t>(dim));
    }
    return dims;
  }

  void read_offsets(TensorEntry* t) const {
    const Json& offsets = field("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2) {
      const std::string found = offsets.is_array()
                                    ? "an array of " + std::to_string(offsets.size())
                                    : json_kind(offsets);
      fail("tensor " + in_quotes(name_) + ": 'data_offsets' must be an array of 2 integers, found " +
           found);
    }
    t->begin = read_count(offsets[0], "data_offsets", 0);
    t->end = read_count(offsets[1], "data_offsets", 1);
    if (t->end < t->begin) {
      fail("tensor " + in_quotes(name_) + " data_offsets " + range(*t) +
           " are reversed (the end comes before the start)");
    }
  }

  void check_byte_size(const TensorEntry& t) const {
    const int64_t elem_bytes = dtype_block_bytes(t.view.dtype);
    int64_t needed = 0;
    if (__builtin_mul_overflow(t.view.n_elements(), elem_bytes, &needed)) {
      fail("tensor " + in_quotes(name_) + " byte size overflows 64 bits");
    }
    if (static_cast<uint64_t>(needed) != t.view.n_bytes) {
      fail("tensor " + in_quotes(name_) + " holds " + std::to_string(t.view.n_bytes) +
           " bytes (data_offsets " + range(t) + ") but its shape " + shape_text(t.view.shape) +
           " of " + std::string(*safetensors_dtype_name(t.view.dtype)) + " needs " +
           std::to_string(needed));
    }
  }

  const std::string& label_;
  const std::string& name_;
  const Json& entry_;
};

uint64_t read_header_length(ByteReader& r) {
  const auto length = r.read<uint64_t>("header length");
  // Checked first: a length this large says the file is not safetensors at all.
  if (length > SafetensorsFile::kMaxHeaderBytes) {
    r.fail(0, "header length " + std::to_string(length) + " is implausibly large (the limit is " +
                  std::to_string(SafetensorsFile::kMaxHeaderBytes) + " bytes)");
  }
  if (length > r.remaining()) {
    r.fail(0, "header length " + std::to_string(length) + " runs past the end of the file (" +
                  std::to_string(r.size()) + " bytes)");
  }
  return length;
}

std::map<std::string, MetaValue> read_metadata(const Json& value, const std::string& label) {
  if (!value.is_object()) {
    throw Error(label + ": '__metadata__' is " + json_kind(value) + ", not an object");
  }
  std::map<std::string, MetaValue> metadata;
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      throw Error(label + ": '__metadata__' entry " + in_quotes(key) + " is " + json_kind(item) +
                  ", not a string");
    }
    metadata.emplace(key, MetaValue{.value = item.get<std::string>()});
  }
  return metadata;
}

// Refuses tensors outside the data section, overlapping ones, and data a kernel
// could not read in place (the mapping is page-aligned, so file offsets decide).
void check_placement(const std::vector<TensorEntry>& entries, const ByteReader& r, uint64_t data_offset) {
  const uint64_t data_bytes = r.size() - data_offset;
  for (const TensorEntry& t : entries) {
    if (t.end > data_bytes) {
      throw Error(r.label() + ": tensor " + in_quotes(t.view.name) + " data_offsets " + range(t) +
                  " run past the end of the data section (" + std::to_string(data_bytes) +
                  " bytes from offset " + std::to_string(data_offset) + ")");
    }
    const uint64_t elem_bytes = static_cast<uint64_t>(dtype_block_bytes(t.view.dtype));
    if ((data_offset + t.begin) % elem_bytes != 0) {
      r.fail(data_offset + t.begin,
             "tensor " + in_quotes(t.view.name) + " data is not aligned to its " +
                 std::to_string(elem_bytes) +
                 "-byte elements (write the file again with a current safetensors writer)");
    }
  }
  std::vector<const TensorEntry*> by_start;
  for (const TensorEntry& t : entries) {
    if (t.end > t.begin) by_start.push_back(&t);  // empty tensors overlap nothing
  }
  std::sort(by_start.begin(), by_start.end(),
            [](const TensorEntry* a, const TensorEntry* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_start.size(); ++i) {
    const TensorEntry& prev = *by_start[i - 1];
    const TensorEntry& next = *by_start[i];
    if (next.begin < prev.end) {
      throw Error(r.label() + ": tensors " + in_quotes(prev.view.name) + " " +
                  range(prev) + " and " + in_quotes(next.view.name) + " " +
                  range(next) + " overlap");
    }
  }
}

}  // namespace

bool SafetensorsFile::has_signature(std::span<const uint8_t> bytes) {
  uint64_t length = 0;
  if (bytes.size() < sizeof length + 1) return false;
  std::memcpy(&length, bytes.data(), sizeof length);
  return length >= 1 && length <= bytes.size() - sizeof length && bytes[sizeof length] == '{';
}

std::unique_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  return open(MappedFile(path));
}

std::unique_ptr<SafetensorsFile> SafetensorsFile::open(MappedFile file) {
  std::unique_ptr<SafetensorsFile> st(new SafetensorsFile(std::move(file)));
  st->parse();
  return st;
}

void SafetensorsFile::parse() {
  ByteReader r(file_.bytes(), file_.path());
  const uint64_t header_length = read_header_length(r);
  const std::string_view text = r.read_bytes(header_length, "header");
  data_offset_ = r.offset();

  const Json header = parse_json_text(text, r.label(), "the header", sizeof(uint64_t));
  if (!header.is_object()) {
    throw Error(r.label() + ": the header is " + json_kind(header) + ", not an object");
  }
  std::vector<TensorEntry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      metadata_ = read_metadata(value, r.label());
    } else {
      entries.push_back(EntryReader(r.label(), key, value).read());
    }
  }
  check_placement(entries, r, data_offset_);

  tensors_.reserve(entries.size());
  for (TensorEntry& t : entries) {  // a JSON object iterates by key: sorted by name
    t.view.data = file_.data() + data_offset_ + t.begin;
    tensors_.push_back(std::move(t.view));
  }
}

}  // namespace tessera
