// A Hugging Face model folder as one WeightFile: config.json as metadata (flattened
// to dotted keys) and the tensors of model.safetensors, or of every shard listed by
// model.safetensors.index.json, served from read-only memory mappings.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/weights/safetensors_file.h"
#include "core/weights/weight_file.h"

namespace tessera {

inline constexpr const char* kHfConfigName = "config.json";
inline constexpr const char* kHfSingleFileName = "model.safetensors";
inline constexpr const char* kHfIndexName = "model.safetensors.index.json";

class HfFolder : public WeightFile {
 public:
  // Opens FOLDER/config.json (required) and FOLDER/model.safetensors or, when that
  // is absent, FOLDER/model.safetensors.index.json, whose "weight_map" maps each
  // tensor name to its shard file in the folder (each shard is mapped once). Throws
  // tessera::Error naming the file at fault: a missing config.json or weights file,
  // anything SafetensorsFile::open refuses, and for an index a shard path outside
  // the folder, a missing shard, a tensor its shard lacks, a tensor in two shards or
  // a shard tensor the weight_map does not list.
  static std::unique_ptr<HfFolder> open(const std::string& folder);

  // The folder as given.
  const std::string& path() const override { return folder_; }
  std::string format() const override { return "hf"; }
  // config.json flattened as flatten_config_json() describes.
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  // FOLDER/config.json.
  std::string metadata_path() const override;
  // The keys config.json gives as null (dotted as in metadata()).
  bool meta_is_null(const std::string& key) const override { return null_keys_.count(key) > 0; }
  // Every tensor of every safetensors file, sorted by name.
  const std::vector<TensorView>& tensors() const override { return tensors_; }

  // The safetensors files read, in the order of their paths.
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }

 private:
  explicit HfFolder(std::string folder) : folder_(std::move(folder)) {}
  void load_config();
  void load_shards(const std::string& index_path);
  void collect_tensors();

  std::string folder_;
  std::map<std::string, MetaValue> metadata_;
  std::set<std::string> null_keys_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;  // keep every TensorView valid
  std::vector<TensorView> tensors_;
};

}  // namespace tessera
