// The op graph as Graphviz text (`tessera check --dot`): one box per node, one ellipse
// per weight, step input and cache tensor, edges along the tensors, layers as clusters.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace tessera {

// `node_layers[i]` is node i's layer (-1 outside loops); an empty vector: no clusters.
std::string graph_to_dot(const Graph& graph, const std::string& title, const std::vector<int>& node_layers);

}  // namespace tessera
