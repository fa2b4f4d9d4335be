// Safetensors and model-folder writing; see safetensors_writer.h. Headers are built
// with nlohmann_json (its objects keep keys sorted, which the format allows).
#include "core/weights/safetensors_writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>

#include "core/util/error.h"
#include "core/weights/atomic_output_file.h"
#include "core/weights/hf_folder.h"
#include "core/weights/json_text.h"
#include "core/weights/safetensors_dtype.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr uint64_t kDataAlignment = 8;

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

uint64_t element_bytes(DType t) { return static_cast<uint64_t>(dtype_block_bytes(t)); }

void check_tensor(const SafetensorsTensor& t, const std::string& path,
                  std::set<std::string_view>* names) {
  const auto fail = [&](const std::string& why) {
    throw Error(path + ": cannot write tensor " + in_quotes(t.name) + ": " + why);
  };
  if (t.name.empty()) fail("the name is empty");
  if (t.name == "__metadata__") fail("the name is reserved for the file's metadata");
  if (!names->insert(t.name).second) fail("a tensor of that name was already given");
  if (!safetensors_dtype_name(t.dtype)) {
    fail("safetensors cannot hold " + std::string(dtype_name(t.dtype)) + " tensors");
  }
  uint64_t n_elements = 1;
  for (const int64_t dim : t.shape) {
    if (dim < 0) fail("dimension " + std::to_string(dim) + " is negative");
    if (__builtin_mul_overflow(n_elements, static_cast<uint64_t>(dim), &n_elements)) {
      fail("the element count overflows 64 bits");
    }
  }
  uint64_t needed = 0;
  if (__builtin_mul_overflow(n_elements, element_bytes(t.dtype), &needed) ||
      needed != t.bytes.size()) {
    fail(std::to_string(t.bytes.size()) + " bytes given, but the shape needs " +
         std::to_string(n_elements) + " x " + std::to_string(element_bytes(t.dtype)));
  }
}

// Throws naming `path` unless every tensor can be written, names unique.
void check_tensors(const std::vector<SafetensorsTensor>& tensors, const std::string& path) {
  std::set<std::string_view> names;
  for (const SafetensorsTensor& t : tensors) check_tensor(t, path, &names);
}

// Larger elements first, then by name: with the data section 8-byte aligned and no
// gaps between tensors, every tensor then starts at a multiple of its element size.
std::vector<const SafetensorsTensor*> data_order(const std::vector<SafetensorsTensor>& tensors) {
  std::vector<const SafetensorsTensor*> order;
  for (const SafetensorsTensor& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
    const uint64_t ea = element_bytes(a->dtype);
    const uint64_t eb = element_bytes(b->dtype);
    return ea != eb ? ea > eb : a->name < b->name;
  });
  return order;
}

// The JSON header padded with spaces so that 8 + its length is a multiple of 8.
std::string header_text(const std::vector<const SafetensorsTensor*>& order,
                        const std::map<std::string, std::string>& metadata) {
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const SafetensorsTensor* t : order) {
    const uint64_t end = offset + t->bytes.size();
    header[t->name] = {{"dtype", *safetensors_dtype_name(t->dtype)},
                       {"shape", t->shape},
                       {"data_offsets", {offset, end}}};
    offset = end;
  }
  std::string text = header.dump();
  const uint64_t padded = (sizeof(uint64_t) + text.size() + kDataAlignment - 1) /
                          kDataAlignment * kDataAlignment;
  text.resize(padded - sizeof(uint64_t), ' ');
  return text;
}

void write_text_file(const std::string& path, std::string_view text) {
  AtomicOutputFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

// Tensor indices per shard, in the given order: a shard takes tensors while their
// bytes fit max_shard_bytes; a tensor larger than that fills a shard alone.
std::vector<std::vector<size_t>> plan_shards(const std::vector<SafetensorsTensor>& tensors,
                                             uint64_t max_shard_bytes) {
  std::vector<std::vector<size_t>> shards;
  uint64_t shard_bytes = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t bytes = tensors[i].bytes.size();
    if (shards.empty() || shard_bytes + bytes > max_shard_bytes) {
      shards.emplace_back();
      shard_bytes = 0;
    }
    shards.back().push_back(i);
    shard_bytes += bytes;
  }
  return shards;
}

std::string shard_file_name(size_t index, size_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index + 1, count);
  return name;
}

void remove_if_present(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) throw Error(path + ": cannot remove the stale file: " + ec.message());
}

void write_shards(const std::string& folder, const std::vector<SafetensorsTensor>& tensors,
                  uint64_t total_bytes, uint64_t max_shard_bytes) {
  const std::vector<std::vector<size_t>> shards = plan_shards(tensors, max_shard_bytes);
  Json weight_map = Json::object();
  for (size_t s = 0; s < shards.size(); ++s) {
    const std::string name = shard_file_name(s, shards.size());
    std::vector<SafetensorsTensor> part;
    for (const size_t i : shards[s]) {
      part.push_back(tensors[i]);
      weight_map[tensors[i].name] = name;
    }
    write_safetensors((fs::path(folder) / name).string(), part);
  }
  const Json index = {{"metadata", {{"total_size", total_bytes}}}, {"weight_map", weight_map}};
  write_text_file((fs::path(folder) / kHfIndexName).string(), index.dump(2) + "\n");
  remove_if_present((fs::path(folder) / kHfSingleFileName).string());
}

}  // namespace

void write_safetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  check_tensors(tensors, path);
  const std::vector<const SafetensorsTensor*> order = data_order(tensors);
  const std::string header = header_text(order, metadata);

  AtomicOutputFile out(path);
  const uint64_t header_length = header.size();
  out.write(&header_length, sizeof header_length);
  out.write(header.data(), header.size());
  for (const SafetensorsTensor* t : order) out.write(t->bytes.data(), t->bytes.size());
  out.commit();
}

void write_hf_folder(const std::string& folder, std::string_view config_json_text,
                     const std::vector<SafetensorsTensor>& tensors, uint64_t max_shard_bytes) {
  const std::string config_path = (fs::path(folder) / kHfConfigName).string();
  const Json config = parse_json_text(config_json_text, config_path + " (text to write)", "");
  if (!config.is_object()) {
    throw Error(config_path + ": cannot write " + json_kind(config) +
                " as config.json (it must be a JSON object)");
  }
  check_tensors(tensors, folder);  // before anything is written
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw Error(folder + ": cannot create the folder: " + ec.message());
  write_text_file(config_path, config_json_text);

  const uint64_t total_bytes = std::accumulate(
      tensors.begin(), tensors.end(), uint64_t{0},
      [](uint64_t sum, const SafetensorsTensor& t) { return sum + t.bytes.size(); });
  if (total_bytes <= max_shard_bytes) {
    write_safetensors((fs::path(folder) / kHfSingleFileName).string(), tensors);
    remove_if_present((fs::path(folder) / kHfIndexName).string());
  } else {
    write_shards(folder, tensors, total_bytes, max_shard_bytes);
  }
}

}  // namespace tessera
