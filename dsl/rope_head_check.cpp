#include "dsl/rope_head_check.h"

#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "dsl/diagnostics.h"

namespace tessera::dsl {
namespace {

// The line and column of a node's origin, "file:line:col" (the file may hold ':'), and
// where that file's text begins in `source`.
SourceLocation location_of(const std::string& origin, const SourceText& source) {
  SourceLocation loc;
  const size_t col_colon = origin.rfind(':');
  const size_t line_colon = col_colon == std::string::npos || col_colon == 0 ? std::string::npos
                                                                           : origin.rfind(':', col_colon - 1);
  if (line_colon == std::string::npos) return loc;
  std::from_chars(origin.data() + line_colon + 1, origin.data() + col_colon, loc.line);
  std::from_chars(origin.data() + col_colon + 1, origin.data() + origin.size(), loc.column);
  loc.offset = source.begin_of(std::string_view(origin).substr(0, line_colon));
  return loc;
}

// What reads a tensor as heads: the attention's queries or the KV cache's keys.
struct HeadReader {
  int32_t head_dim = 0;
  std::string what;  // "heads of 128 (heads: 32)" for the message
};

class RopeHeadChecker {
 public:
  explicit RopeHeadChecker(const Graph& graph) : graph_(graph) {
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
      for (int input : graph.nodes()[i].inputs) readers_[input].push_back(i);
    }
  }

  // The first reader of `tensor` (or of a scaled copy of it) that splits it into heads.
  const HeadReader* head_reader(int tensor, HeadReader& out) const {
    const auto it = readers_.find(tensor);
    if (it == readers_.end()) return nullptr;
    for (size_t n : it->second) {
      const GraphNode& node = graph_.nodes()[n];
      if (node.op == OpKind::Attention && node.inputs[0] == tensor) {
        const auto& p = std::get<AttentionParams>(node.params);
        out = {p.head_dim, "the attention it feeds has heads of " + std::to_string(p.head_dim) + " (heads: " +
                               std::to_string(p.n_heads) + ")"};
        return &out;
      }
      if (node.op == OpKind::KvWrite && node.inputs[0] == tensor) {
        const auto& p = std::get<KvWriteParams>(node.params);
        out = {p.head_dim, "the KV cache it is written to has heads of " + std::to_string(p.head_dim) +
                               " (kv_heads: " + std::to_string(p.n_kv_heads) + ")"};
        return &out;
      }
      if (node.op == OpKind::Scale && head_reader(node.output, out)) return &out;
    }
    return nullptr;
  }

 private:
  const Graph& graph_;
  std::map<int, std::vector<size_t>> readers_;  // tensor -> the nodes reading it
};

}  // namespace

void check_rope_heads(const Graph& graph, const SourceText& source) {
  const RopeHeadChecker checker(graph);
  for (const GraphNode& node : graph.nodes()) {
    if (node.op != OpKind::Rope) continue;
    const auto& rope = std::get<RopeParams>(node.params);
    HeadReader reader;
    if (!checker.head_reader(node.output, reader) || reader.head_dim == rope.head_dim) continue;
    fail_at(source, location_of(node.origin, source),
            "rope: heads: " + std::to_string(rope.n_heads) + " splits the " +
                std::to_string(int64_t{rope.n_heads} * rope.head_dim) + " columns of '" +
                graph.tensor(node.output).name + "' into heads of " +
                std::to_string(rope.head_dim) + ", but " + reader.what +
                "; rope must rotate the heads attention uses");
  }
}

}  // namespace tessera::dsl
