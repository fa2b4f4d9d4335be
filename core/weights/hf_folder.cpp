// Hugging Face folder loading: config.json, then a single safetensors file or the
// shards named by the index, cross-checked against the index's weight_map.
#include "core/weights/hf_folder.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "core/util/error.h"
#include "core/util/mapped_file.h"
#include "core/weights/hf_config.h"
#include "core/weights/json_text.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string file_in(const std::string& folder, const std::string& name) {
  return (fs::path(folder) / name).string();
}

std::string_view text_of(const MappedFile& file) {
  return {reinterpret_cast<const char*>(file.data()), static_cast<size_t>(file.size())};
}

// A shard name from the index as a path relative to the folder, normalised so that
// "a.safetensors" and "./a.safetensors" are one shard; throws if it leaves the folder.
std::string shard_name(const std::string& raw, const std::string& tensor,
                       const std::string& index_path) {
  const fs::path normal = fs::path(raw).lexically_normal();
  const bool inside = !raw.empty() && normal.is_relative() && normal.has_filename() &&
                      *normal.begin() != "..";
  if (!inside) {
    throw Error(index_path + ": shard " + in_quotes(raw) + " of tensor " + in_quotes(tensor) +
                " is not a file inside the model folder");
  }
  return normal.string();
}

// The index's weight_map: tensor name -> shard name (relative to the folder).
std::map<std::string, std::string> read_weight_map(const std::string& index_path) {
  const MappedFile file(index_path);
  const Json index = parse_json_text(text_of(file), index_path, "");
  if (!index.is_object()) {
    throw Error(index_path + ": holds " + json_kind(index) + ", not a JSON object");
  }
  const auto it = index.find("weight_map");
  if (it == index.end()) throw Error(index_path + ": no 'weight_map'");
  if (!it->is_object()) {
    throw Error(index_path + ": 'weight_map' is " + json_kind(*it) + ", not an object");
  }
  std::map<std::string, std::string> weight_map;
  for (const auto& [tensor, shard] : it->items()) {
    if (!shard.is_string()) {
      throw Error(index_path + ": 'weight_map' entry " + in_quotes(tensor) + " is " +
                  json_kind(shard) + ", not a string");
    }
    weight_map.emplace(tensor, shard_name(shard.get<std::string>(), tensor, index_path));
  }
  return weight_map;
}

// Every tensor the weight_map assigns to `shard` must be in it.
void check_mapped_tensors_present(const SafetensorsFile& file, const std::string& shard,
                                  const std::map<std::string, std::string>& weight_map,
                                  const std::string& index_path) {
  std::set<std::string_view> names;
  for (const TensorView& t : file.tensors()) names.insert(t.name);
  for (const auto& [tensor, mapped_shard] : weight_map) {
    if (mapped_shard == shard && !names.contains(tensor)) {
      throw Error(index_path + ": tensor " + in_quotes(tensor) + " is mapped to shard " +
                  in_quotes(shard) + ", which does not contain it");
    }
  }
}

// Every tensor in `shard` must be assigned to it: one the weight_map assigns to another
// shard (which holds it too, checked first) is in two shards.
void check_shard_tensors_listed(const SafetensorsFile& file, const std::string& shard,
                                const std::map<std::string, std::string>& weight_map,
                                const std::string& index_path) {
  for (const TensorView& t : file.tensors()) {
    const auto it = weight_map.find(t.name);
    if (it == weight_map.end()) {
      throw Error(index_path + ": shard " + in_quotes(shard) + " holds tensor " + in_quotes(t.name) +
                  ", which the weight_map does not list");
    }
    if (it->second != shard) {
      throw Error(index_path + ": tensor " + in_quotes(t.name) + " is in two shards, " +
                  in_quotes(it->second) + " and " + in_quotes(shard));
    }
  }
}

}  // namespace

std::unique_ptr<HfFolder> HfFolder::open(const std::string& folder) {
  if (!fs::is_directory(folder)) {
    throw Error(folder + ": not a directory (a Hugging Face model folder holds config.json "
                "and safetensors files)");
  }
  std::unique_ptr<HfFolder> hf(new HfFolder(folder));
  hf->load_config();
  const std::string single = file_in(folder, kHfSingleFileName);
  const std::string index = file_in(folder, kHfIndexName);
  if (fs::exists(single)) {
    hf->files_.push_back(SafetensorsFile::open(single));
  } else if (fs::exists(index)) {
    hf->load_shards(index);
  } else {
    throw Error(folder + ": neither " + kHfSingleFileName + " nor " + kHfIndexName +
                " is in the folder");
  }
  hf->collect_tensors();
  return hf;
}

void HfFolder::load_config() {
  const std::string config_path = file_in(folder_, kHfConfigName);
  if (!fs::exists(config_path)) {
    throw Error(folder_ + ": no config.json in the folder (a Hugging Face model folder "
                "needs one)");
  }
  const MappedFile config(config_path);
  metadata_ = flatten_config_json(text_of(config), config_path, &null_keys_);
}

std::string HfFolder::metadata_path() const { return file_in(folder_, kHfConfigName); }

void HfFolder::load_shards(const std::string& index_path) {
  const std::map<std::string, std::string> weight_map = read_weight_map(index_path);
  std::map<std::string, std::string> first_tensor_of_shard;
  for (const auto& [tensor, shard] : weight_map) first_tensor_of_shard.emplace(shard, tensor);

  std::vector<std::pair<std::string, const SafetensorsFile*>> shards;  // name, file
  for (const auto& [shard, tensor] : first_tensor_of_shard) {
    const std::string shard_path = file_in(folder_, shard);
    if (!fs::exists(shard_path)) {
      throw Error(index_path + ": tensor " + in_quotes(tensor) + " is in shard " +
                  in_quotes(shard) + ", which does not exist");
    }
    files_.push_back(SafetensorsFile::open(shard_path));
    shards.emplace_back(shard, files_.back().get());
  }
  // All shards are checked for missing tensors before any for extra ones, so that a
  // tensor found outside its mapped shard is known to be in two.
  for (const auto& [shard, file] : shards) {
    check_mapped_tensors_present(*file, shard, weight_map, index_path);
  }
  for (const auto& [shard, file] : shards) {
    check_shard_tensors_listed(*file, shard, weight_map, index_path);
  }
}

void HfFolder::collect_tensors() {
  for (const auto& file : files_) {
    tensors_.insert(tensors_.end(), file->tensors().begin(), file->tensors().end());
  }
  std::sort(tensors_.begin(), tensors_.end(),
            [](const TensorView& a, const TensorView& b) { return a.name < b.name; });
}

}  // namespace tessera
