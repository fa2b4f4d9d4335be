// Which device runs each node of a graph: the chosen backend's, or, for an (op,
// dtype) it has no kernel for, the fallback's (the CPU by default). The nodes that
// share a layer's KV cache (its KV_WRITE and ATTENTION) always run where that cache
// lives, so a cache is never split between devices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"

namespace tessera {

// A device and the kernels that run on it, in order of preference.
struct ExecutionTarget {
  const Device* device = nullptr;
  const KernelRegistry* registry = nullptr;
};

struct NodePlacement {
  std::vector<int> node_target;           // [nodes] index into the targets
  std::vector<RegisteredKernel> kernels;  // [nodes] the kernel each node runs
  // [nodes] 1: moved off its first choice only to run where its KV cache lives
  std::vector<uint8_t> follows_cache;
  // [tensors] the target holding a Cache tensor or writing an Activation; -1 for
  // weights and step inputs, which are placed on every target that reads them.
  std::vector<int> tensor_home;
};

// The dtype a node's kernel is registered under (see the op list in plugin_abi.h).
DType key_dtype(const Graph& g, const GraphNode& n);
// "node 12 (rms_norm, layer 1: ...)", for messages.
std::string describe_node(const GraphNode& n, size_t index);

// Places every node on the first target with a kernel for it. Throws tessera::Error
// naming the node when none has one; with a single target that is the backend's
// refusal: "backend 'vulkan' has no kernel for rms_norm with f32 data, needed by ...".
NodePlacement place_nodes(const Graph& graph, std::span<const ExecutionTarget> targets);

}  // namespace tessera
