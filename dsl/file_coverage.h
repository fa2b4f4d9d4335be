// What of the weights file a compiled definition leaves unread: tensors no weight of
// the graph reads (a definition that never declares `output.weight` runs a file whose
// output differs from its embedding and gives wrong tokens) and architectural metadata
// no meta() names. Computed here, said by the tools.
#pragma once

#include <string>
#include <vector>

#include "core/graph/compiled_model.h"
#include "core/weights/weight_file.h"
#include "dsl/hparams.h"

namespace tessera::dsl {

// The coverage of `file` by `graph`, compiled from a definition whose hyper-parameters
// are `hparams`. Optional weights the file lacks (`else none`) and tied ones (`else
// tok_embd`) leave nothing unread. Unread metadata is looked for in files with GGUF
// keys only (not in a Hugging Face folder's config.json).
FileCoverage file_coverage(const WeightFile& file, const Graph& graph, const HParamValues& hparams);

// The messages the tools print (as warnings, or as the error of --strict): one for
// unused tensors, one for unread keys, each only when there are some; empty when the
// definition reads the whole file. `weights` and the definition's path name the files:
//   3 tensor(s) of model.gguf are not used by models/bloom.tsr: output.weight, ...
std::vector<std::string> coverage_problems(const CompiledModel& model, const std::string& weights);

// "a, b, c" of the first `cap` names, then ", ... and N more".
std::string capped_list(const std::vector<std::string>& names, size_t cap);

}  // namespace tessera::dsl
