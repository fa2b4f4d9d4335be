// Saying what of the weights file a definition leaves unread (tensors no weight reads,
// metadata that changes the computation): a warning on stderr, or with --strict an error.
#pragma once

#include <string>

#include "core/graph/compiled_model.h"

namespace tessera::cli {

// Prints one "tessera: warning: ..." line per kind of problem `model.coverage` holds,
// or with `strict` throws tessera::Error with them instead. `weights` is the path the
// user gave, for the message.
void report_coverage(const CompiledModel& model, const std::string& weights, bool strict);

}  // namespace tessera::cli
