// GGUF metadata that changes what a model computes: the keys under "<arch>." a
// definition must read (or knowingly not) for its results to be right, such as a
// sliding window or a logit soft-cap. A file key of this list that no meta() of the
// definition names, holding a value that matters, is reported after compiling.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/graph/compiled_model.h"
#include "core/weights/weight_file.h"

namespace tessera::dsl {

// The keys of `file` under "<arch>." that are in the list of architectural keys, hold
// a number (or a boolean) that matters, and are not in `named_keys`, sorted by key.
// A value matters unless it is the one with which ignoring the key computes the same:
// 0 for a window or a soft-cap, 1 for a scale, the head size that embedding_length /
// head_count gives for key_length, no scaling factor for the other rope.scaling keys.
// Strings and arrays are skipped: meta() reads numbers only.
std::vector<FileCoverage::Key> unread_architectural_keys(const WeightFile& file, const std::string& arch,
                                                         const std::set<std::string>& named_keys);

}  // namespace tessera::dsl
