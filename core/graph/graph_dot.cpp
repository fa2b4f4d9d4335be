#include "core/graph/graph_dot.h"

#include <map>
#include <set>

namespace tessera {
namespace {

// Graphviz double-quoted string contents.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string tensor_id(int t) { return "t" + std::to_string(t); }
std::string node_id(size_t n) { return "n" + std::to_string(n); }

// Tensors that no node produces: weights, step inputs, caches.
std::string source_tensor(const GraphTensor& t, int id) {
  const char* fill = t.role == TensorRole::Weight ? "lightyellow" : t.role == TensorRole::Cache ? "lightblue" : "white";
  return "  " + tensor_id(id) + " [shape=ellipse, style=filled, fillcolor=" + fill + ", label=\"" +
         escaped(t.name) + "\"];\n";
}

}  // namespace

std::string graph_to_dot(const Graph& graph, const std::string& title, const std::vector<int>& node_layers) {
  const auto& nodes = graph.nodes();
  std::map<int, size_t> producer;  // activation tensor -> the last node writing it
  std::string out = "digraph \"" + escaped(title) + "\" {\n  rankdir=TB;\n  node [fontsize=10];\n";

  std::set<int> sources;
  for (const GraphNode& n : nodes) {
    for (int in : n.inputs) {
      if (graph.tensor(in).role != TensorRole::Activation) sources.insert(in);
    }
  }
  for (int t : sources) out += source_tensor(graph.tensor(t), t);

  int open_layer = -1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int layer = i < node_layers.size() ? node_layers[i] : -1;
    if (layer != open_layer) {
      if (open_layer >= 0) out += "  }\n";
      if (layer >= 0) out += "  subgraph cluster_" + std::to_string(layer) + " {\n  label=\"layer " + std::to_string(layer) + "\";\n";
      open_layer = layer;
    }
    const GraphNode& n = nodes[i];
    out += "  " + node_id(i) + " [shape=box, label=\"" + n.op_label() + "\\n" + escaped(n.label) + "\"];\n";
  }
  if (open_layer >= 0) out += "  }\n";

  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& n = nodes[i];
    for (int in : n.inputs) {
      const auto p = producer.find(in);
      const std::string from = p != producer.end() ? node_id(p->second) : tensor_id(in);
      if (p == producer.end() && graph.tensor(in).role == TensorRole::Activation) continue;
      out += "  " + from + " -> " + node_id(i) + ";\n";
    }
    if (graph.tensor(n.output).role == TensorRole::Cache) {
      out += "  " + node_id(i) + " -> " + tensor_id(n.output) + " [style=dashed];\n";
    } else {
      producer[n.output] = i;
    }
  }
  out += "}\n";
  return out;
}

}  // namespace tessera
