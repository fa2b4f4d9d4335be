#include "tools/tessera/random_hf_folder.h"

#include <list>
#include <string_view>
#include <vector>

#include "core/util/error.h"
#include "core/weights/safetensors_writer.h"
#include "tools/tessera/hf_config_writer.h"
#include "tools/tessera/random_model.h"
#include "tools/tessera/weight_rows.h"

namespace tessera::cli {
namespace {

// Tensors per safetensors file before the folder is sharded, as transformers' default.
constexpr uint64_t kMaxShardBytes = 5'000'000'000;
// What marks a stacked weight's hf: name (WeightFile::stack_tensors).
constexpr std::string_view kStackIndex = "{*}";

// The declaration a graph weight was bound from. A graph weight is named as declared,
// or "blk.<layer>.<name>" for one of a layer group (GraphTensor::name). Only a
// definition compiled against a Hugging Face folder marks its weights transposed, so
// without a folder the declaration says which are.
const dsl::WeightDecl& declaration_of(const dsl::ModelDef& def, const GraphTensor& t) {
  constexpr std::string_view kLayerPrefix = "blk.";
  const std::string_view name = t.name;
  if (name.starts_with(kLayerPrefix)) {
    const size_t dot = name.find('.', kLayerPrefix.size());
    const dsl::WeightDecl* w = dot == std::string_view::npos ? nullptr : def.find_weight(name.substr(dot + 1));
    if (w && w->group >= 0) return *w;
  }
  const dsl::WeightDecl* w = def.find_weight(name);
  if (!w || w->group >= 0) throw Error("weight '" + t.name + "' has no declaration in " + def.source.file_name);
  return *w;
}

int64_t rows_of(const Shape& shape) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return rows;
}

}  // namespace

size_t write_random_hf_folder(const dsl::ModelDef& def, const CompiledModel& model, DType dtype, uint64_t seed,
                            const std::string& folder) {
  const std::vector<RandomWeight> weights = random_weights(model, dtype, seed);
  for (const RandomWeight& w : weights) {
    if (w.tensor->hf_name.empty()) {
      throw Error(model.source_file + ": weight '" + declaration_of(def, *w.tensor).name +
                  "' has no hf: name, so a Hugging Face folder cannot hold it");
    }
  }
  const std::string config = hf_config_json(model);
  std::list<std::vector<uint8_t>> data;  // the bytes each SafetensorsTensor borrows
  std::vector<SafetensorsTensor> tensors;
  for (const RandomWeight& w : weights) {
    const Shape& shape = w.tensor->shape;  // [out, in] for matrices
    const int64_t rows = rows_of(shape), cols = shape.back();
    const bool transposed = declaration_of(def, *w.tensor).hf_transposed && shape.size() == 2;
    std::vector<float> values(static_cast<size_t>(rows * cols));
    random_rows(w, 0, rows, values.data());
    const size_t stacked = w.tensor->hf_name.find(kStackIndex);
    if (stacked != std::string::npos) {
      // One tensor per index of the first dimension (an expert's matrix), as the
      // weight's hf: name {*} reads them back.
      const Shape part(shape.begin() + 1, shape.end());
      const int64_t part_rows = rows / shape[0];
      for (int64_t i = 0; i < shape[0]; ++i) {
        const std::vector<float> slice(values.begin() + i * part_rows * cols, values.begin() + (i + 1) * part_rows * cols);
        std::string name = w.tensor->hf_name;
        name.replace(stacked, kStackIndex.size(), std::to_string(i));
        tensors.push_back({name, w.dtype, part, data.emplace_back(encode_matrix(slice, part_rows, cols, w.dtype, false))});
      }
      continue;
    }
    const std::vector<uint8_t>& bytes = data.emplace_back(encode_matrix(values, rows, cols, w.dtype, transposed));
    tensors.push_back({w.tensor->hf_name, w.dtype, transposed ? Shape{cols, rows} : shape, bytes});
  }
  write_hf_folder(folder, config, tensors, kMaxShardBytes);
  return tensors.size();
}

}  // namespace tessera::cli
