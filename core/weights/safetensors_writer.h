// Writers of safetensors files and of Hugging Face model folders (config.json plus
// one safetensors file, or shards and their index), written atomically. Tests and
// conversion tools produce the files the safetensors and folder readers load.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor/dtype.h"

namespace tessera {

// One tensor to write. The bytes are borrowed: they must stay valid during the call.
struct SafetensorsTensor {
  std::string name;
  DType dtype = DType::F32;         // F32, F16, BF16 or I32
  std::vector<int64_t> shape;       // outermost first; [] is a scalar
  std::span<const uint8_t> bytes;   // n_elements × element size, little-endian
};

// Writes one safetensors file: the header (with "__metadata__" when `metadata` is not
// empty) padded with spaces so the data section starts 8-byte aligned, then the
// tensors back to back, those of larger elements first, so each is aligned to its
// element size. Writes PATH.tmp and renames it over PATH; on failure PATH is untouched.
// Throws tessera::Error naming the file and the tensor for an empty, reserved or
// duplicate name, a dtype safetensors cannot hold (Q8_0), a negative dimension, or a
// byte count that does not match the shape.
void write_safetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// Writes a model folder (created if missing): FOLDER/config.json holding
// `config_json_text` (which must be a JSON object) and the tensors, either in
// FOLDER/model.safetensors or, when their bytes add up to more than max_shard_bytes,
// in shards model-0000N-of-0000M.safetensors filled in the given order (each holds at
// most max_shard_bytes of tensor data, or one larger tensor alone) plus
// model.safetensors.index.json. The weights file of the other layout, if present, is
// removed so the folder reads back as written (stale shards are left alone).
void write_hf_folder(const std::string& folder, std::string_view config_json_text,
                     const std::vector<SafetensorsTensor>& tensors, uint64_t max_shard_bytes);

}  // namespace tessera
