// MetaValue accessors and display, WeightFile look-ups, and open_weight_file(): the
// choice of reader by the path (a model folder) or the file's first bytes.
#include "core/weights/weight_file.h"

#include <charconv>
#include <filesystem>

#include "core/util/error.h"
#include "core/util/mapped_file.h"
#include "core/weights/byte_reader.h"
#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_types.h"
#include "core/weights/hf_folder.h"
#include "core/weights/llama2c_reader.h"
#include "core/weights/safetensors_file.h"

namespace tessera {
namespace {

constexpr const char* kNotAnyFormat =
    "not a GGUF file, a llama2.c checkpoint, or a safetensors file or config.json of a "
    "Hugging Face model folder";

constexpr size_t kDisplayArrayItems = 6;
constexpr size_t kDisplayStringChars = 60;

std::string kind_of(const MetaValue& v) {
  switch (v.value.index()) {
    case 0:
      return "a bool";
    case 1:
    case 2:
      return "an integer";
    case 3:
      return "a float";
    case 4:
      return "a string";
    default:
      return "an array";
  }
}

// config.json, the shard index, or a file named *.safetensors (even one too broken
// to recognise by its bytes, so the safetensors reader explains what is wrong).
bool names_a_folder_file(const std::string& path) {
  const std::filesystem::path p(path);
  return p.filename() == kHfConfigName || p.filename() == kHfIndexName ||
         p.extension() == ".safetensors";
}

std::string folder_of(const std::string& file_path) {
  const std::filesystem::path parent = std::filesystem::path(file_path).parent_path();
  return parent.empty() ? "." : parent.string();
}

[[noreturn]] void wrong_kind(const MetaValue& v, const std::string& wanted) {
  throw Error("metadata value " + v.to_display() + " is " + kind_of(v) + ", not " + wanted);
}

std::string display_float(double d, bool single_precision) {
  char buf[32];
  const auto result = single_precision ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d))
                                       : std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, result.ptr);
}

std::string display_string(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    // Shorten at a character boundary, not inside a UTF-8 sequence.
    if (i >= kDisplayStringChars && (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      out += "...";
      break;
    }
    const char ch = s[i];
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += printable_bytes({reinterpret_cast<const uint8_t*>(&ch), 1});
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace

bool MetaValue::is_integer() const {
  return std::holds_alternative<int64_t>(value) || std::holds_alternative<uint64_t>(value);
}

bool MetaValue::is_number() const { return is_integer() || std::holds_alternative<double>(value); }

int64_t MetaValue::as_int() const {
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1 : 0;
  if (const auto* i = std::get_if<int64_t>(&value)) return *i;
  if (const auto* u = std::get_if<uint64_t>(&value)) {
    if (*u > static_cast<uint64_t>(INT64_MAX)) {
      throw Error("metadata value " + std::to_string(*u) + " does not fit a signed 64-bit integer");
    }
    return static_cast<int64_t>(*u);
  }
  wrong_kind(*this, "an integer");
}

double MetaValue::as_float() const {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<uint64_t>(&value)) return static_cast<double>(*u);
  wrong_kind(*this, "a number");
}

const std::string& MetaValue::as_string() const {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  wrong_kind(*this, "a string");
}

const MetaArray& MetaValue::as_array() const {
  if (const auto* a = std::get_if<MetaArray>(&value)) return *a;
  wrong_kind(*this, "an array");
}

std::string MetaValue::to_display() const {
  switch (value.index()) {
    case 0:
      return std::get<bool>(value) ? "true" : "false";
    case 1:
      return std::to_string(std::get<int64_t>(value));
    case 2:
      return std::to_string(std::get<uint64_t>(value));
    case 3:
      return display_float(std::get<double>(value), gguf_type == gguf::kFloat32);
    case 4:
      return display_string(std::get<std::string>(value));
    default:
      break;
  }
  const MetaArray& items = std::get<MetaArray>(value);
  std::string out = "[";
  for (size_t i = 0; i < items.size() && i < kDisplayArrayItems; ++i) {
    out += (i ? ", " : "") + items[i].to_display();
  }
  if (items.size() > kDisplayArrayItems) out += ", ... " + std::to_string(items.size()) + " items";
  return out + "]";
}

int64_t TensorView::n_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::optional<std::string> WeightFile::meta_string(const std::string& key) const {
  const MetaValue* v = find_meta(key);
  if (!v) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&v->value)) return *s;
  throw Error(path() + ": metadata '" + key + "' is " + kind_of(*v) + " (" + v->to_display() + "), not a string");
}

const MetaValue* WeightFile::find_meta(const std::string& key) const {
  const auto& meta = metadata();
  const auto it = meta.find(key);
  return it == meta.end() ? nullptr : &it->second;
}

const TensorView* WeightFile::find_tensor(const std::string& name) const {
  for (const TensorView& t : tensors()) {
    if (t.name == name) return &t;
  }
  const auto it = stacks_.find(name);
  return it == stacks_.end() ? nullptr : &it->second.view;
}

std::unique_ptr<WeightFile> open_weight_file(const std::string& path, const std::string& tokenizer_path,
                                             FileResidency residency) {
  if (std::filesystem::is_directory(path)) return HfFolder::open(path);
  if (names_a_folder_file(path) && std::filesystem::exists(path)) {
    return HfFolder::open(folder_of(path));
  }

  // Mapped first to learn the format (cheap); read into memory only once it is one read
  // as a single file.
  MappedFile file(path);
  const auto held = [&] { return residency == FileResidency::kMapped ? std::move(file) : MappedFile(path, residency); };
  if (GgufFile::has_magic(file.bytes())) return GgufFile::open(held());
  if (SafetensorsFile::has_signature(file.bytes())) return HfFolder::open(folder_of(path));

  Llama2cConfig config;
  const std::string llama2c_problem = read_llama2c_header(file.bytes(), &config);
  if (llama2c_problem.empty()) return Llama2cFile::open(held(), tokenizer_path);

  const std::string not_any = path + ": " + kNotAnyFormat;
  if (file.size() == 0) throw Error(not_any + " (the file is empty)");
  const std::string magic = printable_bytes(file.bytes().first(std::min<size_t>(4, file.size())));
  throw Error(not_any + " (it starts with '" + magic + "', not 'GGUF'; as a llama2.c checkpoint: " +
              llama2c_problem + ")");
}

}  // namespace tessera
