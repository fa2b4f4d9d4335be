// Compiling small model texts in DSL tests and looking into the graph they give: the
// nodes of an op, a node's params, tensors by name, the ops in execution order.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dsl/model_definition.h"

namespace tessera::test {

inline CompiledModel compile_text(const std::string& source, const WeightFile* weights = nullptr,
                                       std::map<std::string, std::string> overrides = {}) {
  dsl::CompileOptions options;
  options.weights = weights;
  options.overrides = std::move(overrides);
  return dsl::compile_model(*dsl::parse_model(source, "test.tsr"), options);
}

// The hyper-parameter `name` of a model whose hparams section also holds `hparams`
// (after d = 4 and v = 8).
inline HParam evaluate(const std::string& hparams, const std::string& name) {
  const CompiledModel m = compile_text("model tiny\nhparams {\n  d = 4\n  v = 8\n" + hparams +
                                       "\n}\n"
                                       "weights { emb [v, d] = \"emb\" }\n"
                                       "forward { logits = linear(outputs(embed(emb)), emb) }\n");
  const HParam* h = m.find_hparam(name);
  if (!h) throw std::runtime_error("no hyper-parameter " + name);
  return *h;
}

// The message of the DslError that parsing and compiling `source` throws, or "accepted".
inline std::string dsl_error(const std::string& source, const WeightFile* weights = nullptr) {
  try {
    compile_text(source, weights);
  } catch (const dsl::DslError& e) {
    return e.message();
  }
  return "accepted";
}

inline std::vector<const GraphNode*> nodes_of(const Graph& g, OpKind op) {
  std::vector<const GraphNode*> out;
  for (const GraphNode& node : g.nodes()) {
    if (node.op == op) out.push_back(&node);
  }
  return out;
}

// The params of the one node of `op`; throws when the graph has none or several.
template <typename Params>
const Params& only_params(const Graph& g, OpKind op) {
  const auto nodes = nodes_of(g, op);
  if (nodes.size() != 1) {
    throw std::runtime_error("expected one " + std::string(op_name(op)) + " node, found " +
                             std::to_string(nodes.size()));
  }
  return std::get<Params>(nodes.front()->params);
}

inline const GraphTensor* find_tensor(const Graph& g, const std::string& name) {
  for (const GraphTensor& t : g.tensors()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The ops of the graph in execution order, by name: "get_rows matmul add ...".
inline std::string op_sequence(const Graph& g) {
  std::string out;
  for (const GraphNode& node : g.nodes()) out += (out.empty() ? "" : " ") + std::string(op_name(node.op));
  return out;
}

}  // namespace tessera::test
