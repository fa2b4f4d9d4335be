// The config.json of a Hugging Face model folder written from a compiled definition:
// every hyper-parameter under its hf: key, so the folder reads back to the same values.
#pragma once

#include <string>

#include "dsl/compiler.h"

namespace tessera::cli {

// A pretty-printed JSON object: "architectures": [], each hyper-parameter that has an
// hf: key with its value (integers as JSON integers, other numbers with a fraction or
// exponent so they read back as floats; dotted keys as nested objects, in definition
// order), and "model_type": the model's name. Throws tessera::Error when two
// hyper-parameters claim the same key with different values, or one key both holds a
// value and nests others.
std::string hf_config_json(const CompiledModel& model);

}  // namespace tessera::cli
