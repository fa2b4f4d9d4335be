// A Hugging Face config.json turned into WeightFile metadata: nested objects become
// dotted keys ("attn_config.alibi_bias_max"), JSON values become MetaValues.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/weights/weight_file.h"

namespace tessera {

// Flattens the JSON object in `text` (the contents of the file `label`):
//   integers -> int64_t (uint64_t only above INT64_MAX), other numbers -> double,
//   bools -> bool, strings -> string, arrays -> MetaArray, null -> no entry (its key
//   goes to *null_keys when given), nested objects -> their entries under "outer.inner" keys.
// Inside arrays, where a dotted key cannot be formed and an element cannot just be
// dropped, objects and nulls become strings of their compact JSON ("{\"a\":1}", "null").
// Throws tessera::Error naming the file for invalid JSON, a top level that is not an
// object, or two entries that flatten to the same key ({"a.b": 1, "a": {"b": 2}}).
std::map<std::string, MetaValue> flatten_config_json(std::string_view text,
                                                     const std::string& label,
                                                     std::set<std::string>* null_keys = nullptr);

}  // namespace tessera
