#include "dsl/file_coverage.h"

#include <set>
#include <string_view>

#include "dsl/architectural_keys.h"

namespace tessera::dsl {
namespace {

// Buffers that older transformers versions saved with the parameters: RoPE's inverse
// frequencies and GPT-2 / GPT-NeoX causal masks. They hold nothing learned (a
// definition computes them), so a Hugging Face folder may carry them unread.
constexpr std::string_view kHfBufferSuffixes[] = {
    ".rotary_emb.inv_freq", ".attn.bias", ".attn.masked_bias", ".attention.bias", ".attention.masked_bias",
};

bool is_hf_buffer(std::string_view name) {
  for (std::string_view suffix : kHfBufferSuffixes) {
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
  }
  return false;
}

// The file tensors the graph's weights read (a tied weight reads its target's).
std::set<std::string> read_tensors(const Graph& graph) {
  std::set<std::string> names;
  for (const GraphTensor& t : graph.tensors()) {
    if (t.role == TensorRole::Weight) names.insert(t.file_name);
  }
  return names;
}

}  // namespace

FileCoverage file_coverage(const WeightFile& file, const Graph& graph, const HParamValues& hparams) {
  FileCoverage c;
  c.checked = true;
  const bool hf = file.format() == "hf";
  std::set<std::string> used = read_tensors(graph);
  used.insert(file.stacked_parts().begin(), file.stacked_parts().end());  // read into stacked weights
  for (const TensorView& t : file.tensors()) {
    c.file_tensors += 1;
    if (used.count(t.name)) {
      c.used_tensors += 1;
    } else if (hf && is_hf_buffer(t.name)) {
      c.ignored_buffers.push_back(t.name);
    } else {
      c.unused_tensors.push_back(t.name);
    }
  }
  if (!hf) c.unread_keys = unread_architectural_keys(file, hparams.arch, hparams.named_meta_keys);
  return c;
}

std::string capped_list(const std::vector<std::string>& names, size_t cap) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < cap; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > cap) out += ", ... and " + std::to_string(names.size() - cap) + " more";
  return out;
}

std::vector<std::string> coverage_problems(const CompiledModel& model, const std::string& weights) {
  constexpr size_t kCap = 8;  // enough to see the pattern; check lists them all
  const FileCoverage& c = model.coverage;
  std::vector<std::string> out;
  if (!c.unused_tensors.empty()) {
    out.push_back(std::to_string(c.unused_tensors.size()) + " tensor(s) of " + weights + " are not used by " +
                  model.source_file + ": " + capped_list(c.unused_tensors, kCap));
  }
  if (!c.unread_keys.empty()) {
    std::vector<std::string> keys;
    for (const FileCoverage::Key& k : c.unread_keys) keys.push_back(k.name + " = " + k.value);
    out.push_back(std::to_string(keys.size()) + " metadata key(s) of " + weights +
                  " that change the computation are not read by " + model.source_file + ": " +
                  capped_list(keys, kCap));
  }
  return out;
}

}  // namespace tessera::dsl
