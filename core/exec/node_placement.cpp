#include "core/exec/node_placement.h"

#include <algorithm>
#include <map>

#include "core/util/error.h"

namespace tessera {

DType key_dtype(const Graph& g, const GraphNode& n) {
  switch (n.op) {
    case OpKind::MatMul:
    case OpKind::Attention:
    case OpKind::MoeMatMul:
      return g.tensor(n.inputs.at(1)).dtype;
    case OpKind::KvWrite:
      return g.tensor(n.output).dtype;
    case OpKind::Custom:
      return g.tensor(n.inputs.at(static_cast<size_t>(std::get<CustomOpParams>(n.params).key_input))).dtype;
    default:
      return g.tensor(n.inputs.at(0)).dtype;
  }
}

std::string describe_node(const GraphNode& n, size_t index) {
  return "node " + std::to_string(index) + " (" + n.op_label() +
         (n.label.empty() ? "" : ", " + n.label) + ")";
}

namespace {

const RegisteredKernel* kernel_on(const Graph& g, const GraphNode& n, const ExecutionTarget& t) {
  return t.registry->find(n.op_ref(), key_dtype(g, n), t.device->plugin());
}

[[noreturn]] void refuse(const Graph& g, size_t i, std::span<const ExecutionTarget> targets) {
  const GraphNode& n = g.nodes()[i];
  const std::string what = n.op_label() + " with " + std::string(dtype_name(key_dtype(g, n))) +
                           " data, needed by " + describe_node(n, i);
  if (targets.size() == 1) {
    throw Error("backend '" + targets[0].device->plugin().name() + "' has no kernel for " + what);
  }
  std::string names;
  for (const ExecutionTarget& t : targets) names += (names.empty() ? "'" : ", '") + t.device->plugin().name() + "'";
  throw Error("no backend (of " + names + ") has a kernel for " + what);
}

// The nodes touching each Cache tensor (the KV_WRITE writing it, the ATTENTION reading it).
std::map<int, std::vector<size_t>> cache_users(const Graph& g) {
  std::map<int, std::vector<size_t>> users;
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const GraphNode& n = g.nodes()[i];
    if (g.tensor(n.output).role == TensorRole::Cache) users[n.output].push_back(i);
    for (int in : n.inputs) {
      if (g.tensor(in).role == TensorRole::Cache) users[in].push_back(i);
    }
  }
  return users;
}

}  // namespace

NodePlacement place_nodes(const Graph& g, std::span<const ExecutionTarget> targets) {
  if (targets.empty()) throw Error("place_nodes: no target to run the graph on");
  NodePlacement p;
  p.node_target.resize(g.nodes().size(), -1);
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    for (size_t t = 0; t < targets.size() && p.node_target[i] < 0; ++t) {
      if (kernel_on(g, g.nodes()[i], targets[t])) p.node_target[i] = static_cast<int>(t);
    }
    if (p.node_target[i] < 0) refuse(g, i, targets);
  }
  // A cache lives on one target: the latest one any of its users needs, which must
  // then run them all (a layer's KV_WRITE and ATTENTION move together).
  p.tensor_home.assign(g.tensors().size(), -1);
  p.follows_cache.assign(g.nodes().size(), 0);
  for (auto& [tensor, users] : cache_users(g)) {
    int home = 0;
    for (size_t i : users) home = std::max(home, p.node_target[i]);
    for (size_t i : users) {
      if (!kernel_on(g, g.nodes()[i], targets[static_cast<size_t>(home)])) refuse(g, i, targets.subspan(home, 1));
      if (p.node_target[i] != home) p.follows_cache[i] = 1;
      p.node_target[i] = home;
    }
    p.tensor_home[static_cast<size_t>(tensor)] = home;
  }
  p.kernels.reserve(g.nodes().size());
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const GraphNode& n = g.nodes()[i];
    p.kernels.push_back(*kernel_on(g, n, targets[static_cast<size_t>(p.node_target[i])]));
    if (g.tensor(n.output).role == TensorRole::Activation) p.tensor_home[static_cast<size_t>(n.output)] = p.node_target[i];
  }
  return p;
}

}  // namespace tessera
