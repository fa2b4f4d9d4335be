#include "core/exec/graph_executor.h"

#include <algorithm>
#include <set>
#include <string>

#include "core/tensor/transpose.h"
#include "core/util/error.h"

namespace tessera {

GraphExecutor::GraphExecutor(const Graph& graph, const WeightFile& weights, std::shared_ptr<Device> device,
                             const KernelRegistry& registry, KvCacheShape kv, const BackendTarget* fallback,
                             const BackendTarget* reference)
    : graph_(graph), kv_(kv) {
  if (graph_.logits() < 0) throw Error("the model graph has no logits output");
  if (kv_.block_size <= 0 || kv_.n_blocks <= 0) {
    throw Error("KV cache needs a positive block size and block count (got " +
                std::to_string(kv_.block_size) + " and " + std::to_string(kv_.n_blocks) + ")");
  }
  devices_.push_back(std::move(device));
  std::vector<ExecutionTarget> targets{{devices_[0].get(), &registry}};
  kernel_plugins_ = registry.plugins();
  if (fallback && fallback->device && fallback->registry && fallback->device != devices_[0]) {
    devices_.push_back(fallback->device);
    targets.push_back({fallback->device.get(), fallback->registry});
    for (const auto& p : fallback->registry->plugins()) kernel_plugins_.push_back(p);
  }
  nodes_ = place_nodes(graph_, targets);
  if (devices_.size() > 1 && std::find(nodes_.node_target.begin(), nodes_.node_target.end(), 1) ==
                                 nodes_.node_target.end()) {
    devices_.resize(1);  // the main device runs everything: no buffers on the fallback
  }
  n_targets_ = devices_.size();
  if (reference && reference->device && reference->registry) add_reference(*reference);
  placement_.assign(devices_.size(), std::vector<Placement>(graph_.tensors().size()));
  arenas_.resize(devices_.size());
  plan_segments();
  place_weights(weights);
  allocate_cache();
}

GraphExecutor::Placement GraphExecutor::place_in(const DeviceBuffer& buffer, uint64_t offset) {
  return {buffer.handle(), offset, static_cast<std::byte*>(buffer.host_ptr())};
}

void GraphExecutor::plan_segments() {
  const auto& nodes = graph_.nodes();
  std::vector<int> writers(graph_.tensors().size(), 0);
  for (const GraphNode& n : nodes) ++writers[static_cast<size_t>(n.output)];
  std::map<std::pair<int, int>, size_t> mirror_of;  // (tensor, device) -> index in mirrors_
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int d = nodes_.node_target[i];
    if (segments_.empty() || segments_.back().device != d) segments_.push_back({d, i, i, {}});
    segments_.back().end = i + 1;
    for (int in : nodes[i].inputs) {
      const GraphTensor& t = graph_.tensor(in);
      if (t.role != TensorRole::Activation || nodes_.tensor_home[static_cast<size_t>(in)] == d) continue;
      if (writers[static_cast<size_t>(in)] != 1) {
        throw Error("activation '" + t.name + "' is written by " + std::to_string(writers[static_cast<size_t>(in)]) +
                    " nodes and read on another device, which the executor cannot copy between devices");
      }
      auto [it, fresh] = mirror_of.try_emplace({in, d}, mirrors_.size());
      if (fresh) {
        mirrors_.push_back({in, d, static_cast<int>(i), static_cast<int>(i)});
        segments_.back().fills.push_back(it->second);
      }
      mirrors_[it->second].last_reader = static_cast<int>(i);
    }
  }
}

void GraphExecutor::place_weights(const WeightFile& weights) {
  // The devices whose nodes read each weight; one placement on each.
  std::vector<std::set<int>> readers(graph_.tensors().size());
  for (size_t i = 0; i < graph_.nodes().size(); ++i) {
    for (int in : graph_.nodes()[i].inputs) readers[static_cast<size_t>(in)].insert(nodes_.node_target[i]);
  }
  for (size_t i = 0; i < graph_.tensors().size(); ++i) {
    const GraphTensor& t = graph_.tensors()[i];
    if (t.role != TensorRole::Weight) continue;
    const TensorView* view = weights.find_tensor(t.file_name);
    if (!view) throw Error(weights.path() + ": no tensor '" + t.file_name + "' (weight '" + t.name + "')");
    Shape stored = t.shape;
    if (t.transposed) std::reverse(stored.begin(), stored.end());
    const bool dtype_ok = t.widened ? (view->dtype == DType::F16 || view->dtype == DType::BF16) && t.dtype == DType::F32
                                    : view->dtype == t.dtype;
    if (!dtype_ok || view->shape != stored) {
      throw Error(weights.path() + ": tensor '" + t.file_name + "' does not match the compiled graph");
    }
    const void* data = view->data;
    uint64_t n_bytes = view->n_bytes;
    if (t.transposed) data = transposed_copy(*view, weights.path());
    if (t.widened) {
      data = widened_copy(*view);
      n_bytes = static_cast<uint64_t>(view->n_elements()) * sizeof(float);
    }
    if (readers[i].empty()) readers[i].insert(0);
    if (ref_ >= 0) readers[i].insert(ref_);
    for (int d : readers[i]) {
      // Kernels only read weights, so handing the read-only mapping to the device is safe.
      owned_.push_back(DeviceBuffer::wrap_host(devices_[static_cast<size_t>(d)], const_cast<void*>(data), n_bytes,
                                               t.file_name));
      at(d, static_cast<int>(i)) = place_in(owned_.back(), 0);
      if (d != ref_) weight_bytes_ += n_bytes;  // the reference's copies are verify mode's own
    }
  }
}

// A weight stored [in, out]: the graph reads its transpose, kept for the executor's life.
const void* GraphExecutor::transposed_copy(const TensorView& view, const std::string& path) {
  const int64_t block = dtype_block_elems(view.dtype);
  if (view.shape.size() != 2 || block != 1) {
    throw Error(path + ": tensor '" + view.name + "' must be a matrix of " +
                "f32, f16 or bf16 to be transposed, not " + std::string(dtype_name(view.dtype)));
  }
  const size_t elem = static_cast<size_t>(view.n_bytes / static_cast<uint64_t>(view.n_elements()));
  converted_.push_back(transpose_matrix(view.data, view.shape[0], view.shape[1], elem));
  return converted_.back().data();
}

// A f16/bf16 vector the graph reads as f32, kept for the executor's life.
const void* GraphExecutor::widened_copy(const TensorView& view) {
  std::vector<uint8_t> bytes(static_cast<size_t>(view.n_elements()) * sizeof(float));
  dequantize_row(view.dtype, view.data, reinterpret_cast<float*>(bytes.data()), view.n_elements());
  converted_.push_back(std::move(bytes));
  return converted_.back().data();
}

void GraphExecutor::allocate_cache() {
  const StepDims none;
  for (size_t i = 0; i < graph_.tensors().size(); ++i) {
    const GraphTensor& t = graph_.tensors()[i];
    if (t.role != TensorRole::Cache) continue;
    const int home = std::max(nodes_.tensor_home[i], 0);
    const uint64_t bytes = tensor_bytes(static_cast<int>(i), none);
    owned_.push_back(DeviceBuffer::alloc(devices_[static_cast<size_t>(home)], bytes, "KV cache " + t.name));
    at(home, static_cast<int>(i)) = place_in(owned_.back(), 0);
    cache_.push_back({static_cast<int>(i), owned_.size() - 1, bytes / static_cast<uint64_t>(kv_.n_blocks), 0});
    kv_bytes_ += bytes;
    if (ref_ >= 0) {
      owned_.push_back(DeviceBuffer::alloc(devices_[static_cast<size_t>(ref_)], bytes, "reference KV cache " + t.name));
      at(ref_, static_cast<int>(i)) = place_in(owned_.back(), 0);
      cache_.back().ref_buffer = owned_.size() - 1;
    }
  }
}

uint64_t GraphExecutor::kv_block_bytes(int32_t k) const { return cache_.at(static_cast<size_t>(k)).block_bytes; }

int64_t GraphExecutor::kv_row_elems(int32_t k) const {
  return graph_.tensor(cache_.at(static_cast<size_t>(k)).tensor).shape.back();
}

DType GraphExecutor::kv_dtype(int32_t k) const {
  return graph_.tensor(cache_.at(static_cast<size_t>(k)).tensor).dtype;
}

size_t GraphExecutor::cache_range(int32_t k, int32_t first, int32_t count, uint64_t* offset) const {
  if (k < 0 || k >= n_cache_tensors() || first < 0 || count < 0 || first > kv_.n_blocks - count) {
    throw Error("KV blocks [" + std::to_string(first) + ", " + std::to_string(int64_t{first} + count) +
                ") of cache tensor " + std::to_string(k) + " are outside the cache of " +
                std::to_string(n_cache_tensors()) + " tensors of " + std::to_string(kv_.n_blocks) + " blocks");
  }
  const CacheTensor& c = cache_[static_cast<size_t>(k)];
  *offset = c.block_bytes * static_cast<uint64_t>(first);
  return c.buffer;
}

void GraphExecutor::read_kv_blocks(int32_t k, int32_t first, int32_t count, void* dst) const {
  uint64_t offset = 0;
  const size_t buffer = cache_range(k, first, count, &offset);
  owned_[buffer].read(offset, dst, kv_block_bytes(k) * static_cast<uint64_t>(count));
}

void GraphExecutor::write_kv_blocks(int32_t k, int32_t first, int32_t count, const void* src) {
  uint64_t offset = 0;
  const size_t buffer = cache_range(k, first, count, &offset);
  owned_[buffer].write(offset, src, kv_block_bytes(k) * static_cast<uint64_t>(count));
  if (ref_ >= 0) {
    owned_[cache_[static_cast<size_t>(k)].ref_buffer].write(offset, src,
                                                            kv_block_bytes(k) * static_cast<uint64_t>(count));
  }
}

int64_t GraphExecutor::resolve_dim(int64_t d, const StepDims& dims) const {
  if (d >= 0) return d;
  switch (static_cast<SymDim>(d)) {
    case SymDim::Tokens: return dims.tokens;
    case SymDim::Outputs: return dims.outputs;
    case SymDim::Seqs: return dims.seqs;
    case SymDim::MaxBlocksPerSeq: return dims.max_blocks;
    case SymDim::CacheBlocks: return kv_.n_blocks;
    case SymDim::BlockSize: return kv_.block_size;
  }
  throw Error("unknown symbolic dimension " + std::to_string(d));
}

uint64_t GraphExecutor::tensor_bytes(int tensor, const StepDims& dims) const {
  const GraphTensor& t = graph_.tensor(tensor);
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < t.shape.size(); ++k) rows *= resolve_dim(t.shape[k], dims);
  const int64_t cols = t.shape.empty() ? 1 : resolve_dim(t.shape.back(), dims);
  return static_cast<uint64_t>(rows * dtype_row_bytes(t.dtype, cols));
}

tsr_tensor GraphExecutor::describe(int tensor, int device, const StepDims& dims) const {
  const GraphTensor& t = graph_.tensor(tensor);
  const Placement& p = at(device, tensor);
  tsr_tensor d{};
  d.buffer = p.buffer;
  d.offset = p.offset;
  d.host_data = p.host_base ? p.host_base + p.offset : nullptr;  // what kernel plugins read
  d.dtype = static_cast<tsr_dtype>(t.dtype);
  d.ndim = static_cast<int32_t>(t.shape.size());
  for (int k = 0; k < 4; ++k) d.shape[k] = k < d.ndim ? resolve_dim(t.shape[static_cast<size_t>(k)], dims) : 1;
  return d;
}

void GraphExecutor::plan_activations(const StepDims& dims) {
  for (size_t d = 0; d < n_targets_; ++d) plan_arena(static_cast<int>(d), dims);
  if (ref_ >= 0) plan_reference_arena(dims);
  planned_ = dims;
}

std::vector<BufferLifetime> GraphExecutor::activation_lifetimes(int device, const StepDims& dims,
                                                               std::vector<int>* ids) const {
  const int n_nodes = static_cast<int>(graph_.nodes().size());
  std::vector<BufferLifetime> lifetimes;
  std::vector<int> slot(graph_.tensors().size(), -1);
  for (int i = 0; i < n_nodes; ++i) {
    const GraphNode& n = graph_.nodes()[static_cast<size_t>(i)];
    const auto out = static_cast<size_t>(n.output);
    if (graph_.tensor(n.output).role == TensorRole::Activation && slot[out] < 0 &&
        (device < 0 || nodes_.tensor_home[out] == device)) {
      slot[out] = static_cast<int>(ids->size());
      ids->push_back(n.output);
      lifetimes.push_back({tensor_bytes(n.output, dims), i, i});
    }
    for (int in : n.inputs) {
      if (slot[static_cast<size_t>(in)] >= 0) lifetimes[static_cast<size_t>(slot[static_cast<size_t>(in)])].last_node = i;
    }
  }
  return lifetimes;
}

void GraphExecutor::plan_arena(int device, const StepDims& dims) {
  // Lifetime of each activation homed here: from the node writing it to the last node
  // reading it on any device (a copy elsewhere is taken before then); the logits live
  // to the end so they can be read back. A mirror lives from the start of the segment
  // that fills it to its last reader here.
  std::vector<int> ids;
  std::vector<BufferLifetime> lifetimes = activation_lifetimes(device, dims, &ids);
  const auto logits = std::find(ids.begin(), ids.end(), graph_.logits());
  if (logits != ids.end()) {
    lifetimes[static_cast<size_t>(logits - ids.begin())].last_node = static_cast<int>(graph_.nodes().size());
  }
  const size_t n_home = ids.size();
  std::vector<size_t> mirror_ids;
  for (const Segment& s : segments_) {
    for (size_t m : s.fills) {
      const Mirror& mirror = mirrors_[m];
      if (mirror.device != device) continue;
      mirror_ids.push_back(m);
      lifetimes.push_back({tensor_bytes(mirror.tensor, dims), static_cast<int>(s.first), mirror.last_reader});
    }
  }
  const MemoryPlan plan = plan_memory(lifetimes);
  auto& arena = arenas_[static_cast<size_t>(device)];
  if (!arena || arena->size() < plan.arena_bytes) {
    arena.reset();  // free the old arena before allocating a bigger one
    arena = std::make_unique<DeviceBuffer>(
        DeviceBuffer::alloc(devices_[static_cast<size_t>(device)], plan.arena_bytes, "activations"));
  }
  for (size_t k = 0; k < n_home; ++k) at(device, ids[k]) = place_in(*arena, plan.offsets[k]);
  for (size_t k = 0; k < mirror_ids.size(); ++k) {
    at(device, mirrors_[mirror_ids[k]].tensor) = place_in(*arena, plan.offsets[n_home + k]);
  }
}

void GraphExecutor::upload_inputs(const StepBatch& batch) {
  for (size_t i = 0; i < graph_.tensors().size(); ++i) {
    const GraphTensor& t = graph_.tensors()[i];
    if (t.role != TensorRole::StepInput) continue;
    const std::vector<int32_t>* src = nullptr;
    switch (t.input) {
      case StepInput::TokenIds: src = &batch.token_ids; break;
      case StepInput::Positions: src = &batch.positions; break;
      case StepInput::KvSlots: src = &batch.kv_slots; break;
      case StepInput::TokenSeq: src = &batch.token_seq; break;
      case StepInput::BlockTables: src = &batch.block_tables; break;
      case StepInput::OutputRows: src = &batch.output_rows; break;
    }
    const uint64_t bytes = std::max<uint64_t>(src->size() * sizeof(int32_t), sizeof(int32_t));
    for (size_t d = 0; d < devices_.size(); ++d) {
      const auto key = std::make_pair(static_cast<int>(d), static_cast<int>(i));
      auto it = input_buffer_.find(key);
      if (it == input_buffer_.end() || owned_[it->second].size() < bytes) {
        DeviceBuffer buf = DeviceBuffer::alloc(devices_[d], std::max<uint64_t>(bytes, 256), "step input " + t.name);
        if (it == input_buffer_.end()) {
          owned_.push_back(std::move(buf));
          it = input_buffer_.emplace(key, owned_.size() - 1).first;
        } else {
          owned_[it->second] = std::move(buf);
        }
      }
      DeviceBuffer& buf = owned_[it->second];
      if (!src->empty()) buf.write(0, src->data(), src->size() * sizeof(int32_t));
      at(static_cast<int>(d), static_cast<int>(i)) = place_in(buf, 0);
    }
  }
}

void GraphExecutor::fill_mirror(const Mirror& m, const StepDims& dims) {
  const int home = nodes_.tensor_home[static_cast<size_t>(m.tensor)];
  const uint64_t bytes = tensor_bytes(m.tensor, dims);
  staging_.resize(bytes);
  arenas_[static_cast<size_t>(home)]->read(at(home, m.tensor).offset, staging_.data(), bytes);
  arenas_[static_cast<size_t>(m.device)]->write(at(m.device, m.tensor).offset, staging_.data(), bytes);
}

void GraphExecutor::run_nodes(int d, size_t first, size_t end, const std::vector<RegisteredKernel>& kernels,
                              const StepBatch& batch, const StepDims& dims) {
  const Device& device = *devices_[static_cast<size_t>(d)];
  std::vector<tsr_tensor> inputs;
  device.begin_step();
  for (size_t i = first; i < end; ++i) {
    const GraphNode& n = graph_.nodes()[i];
    OpParams params = n.params;  // per-step fields are filled here
    if (auto* a = std::get_if<AttentionParams>(&params)) {
      a->block_size = kv_.block_size;
      a->n_seqs = batch.n_seqs;
      a->max_blocks_per_seq = batch.max_blocks_per_seq;
    } else if (auto* w = std::get_if<KvWriteParams>(&params)) {
      w->block_size = kv_.block_size;
    }
    inputs.clear();
    for (int in : n.inputs) inputs.push_back(describe(in, d, dims));
    const tsr_tensor out = describe(n.output, d, dims);
    tsr_custom_params custom{};
    const tsr_op_call call{static_cast<tsr_op>(n.op), op_params_ptr(params, &custom), static_cast<int32_t>(inputs.size()),
                           inputs.data(), &out};
    try {
      device.run(kernels[i], call);
    } catch (const Error& e) {
      // Close the step (what was queued runs or is dropped) so the device can take the next one.
      try {
        device.end_step();
      } catch (const Error&) {
      }
      throw Error(std::string(e.what()) + " [" + describe_node(n, i) + "]");
    }
  }
  device.end_step();
}

void GraphExecutor::run(const StepBatch& batch, std::vector<float>* logits) {
  const auto T = static_cast<size_t>(batch.n_tokens());
  if (T == 0) throw Error("a step needs at least one token");
  if (batch.positions.size() != T || batch.kv_slots.size() != T || batch.token_seq.size() != T ||
      batch.block_tables.size() != static_cast<size_t>(batch.n_seqs) * static_cast<size_t>(batch.max_blocks_per_seq)) {
    throw Error("inconsistent step batch: " + std::to_string(T) + " tokens but " +
                std::to_string(batch.positions.size()) + " positions, " + std::to_string(batch.kv_slots.size()) +
                " slots, " + std::to_string(batch.token_seq.size()) + " sequence ids");
  }
  const StepDims dims{static_cast<int64_t>(T), static_cast<int64_t>(batch.output_rows.size()), batch.n_seqs,
                      batch.max_blocks_per_seq};
  if (dims.tokens != planned_.tokens || dims.outputs != planned_.outputs || dims.seqs != planned_.seqs ||
      dims.max_blocks != planned_.max_blocks) {
    plan_activations(dims);
  }
  upload_inputs(batch);
  for (const Segment& s : segments_) {
    for (size_t m : s.fills) fill_mirror(mirrors_[m], dims);
    if (ref_ < 0) {
      run_nodes(s.device, s.first, s.end, nodes_.kernels, batch, dims);
      continue;
    }
    for (size_t i = s.first; i < s.end; ++i) {  // one node at a time, each checked
      run_nodes(s.device, i, i + 1, nodes_.kernels, batch, dims);
      verify_node(i, batch, dims);
    }
  }
  if (ref_ >= 0) ++verify_.steps;

  const int home = std::max(nodes_.tensor_home[static_cast<size_t>(graph_.logits())], 0);
  const tsr_tensor out = describe(graph_.logits(), home, dims);
  const size_t count = static_cast<size_t>(out.shape[0] * out.shape[1]);
  logits->resize(count);
  arenas_[static_cast<size_t>(home)]->read(out.offset, logits->data(), count * sizeof(float));
}

void GraphExecutor::copy_kv_block(int32_t src_block, int32_t dst_block) {
  std::vector<uint8_t> row;
  for (int32_t k = 0; k < n_cache_tensors(); ++k) {
    row.resize(kv_block_bytes(k));
    read_kv_blocks(k, src_block, 1, row.data());
    write_kv_blocks(k, dst_block, 1, row.data());
  }
}

uint64_t GraphExecutor::arena_bytes() const {
  uint64_t total = 0;
  for (const auto& a : arenas_) total += a ? a->size() : 0;
  return total;
}

PlacementSummary GraphExecutor::placement() const {
  PlacementSummary s;
  for (size_t d = 0; d < n_targets_; ++d) s.devices.push_back(devices_[d]->name());
  s.nodes.assign(n_targets_, 0);
  s.ops.resize(n_targets_);
  for (size_t i = 0; i < graph_.nodes().size(); ++i) {
    const auto d = static_cast<size_t>(nodes_.node_target[i]);
    ++s.nodes[d];
    const GraphNode& n = graph_.nodes()[i];
    const DType dtype = key_dtype(graph_, n);
    const bool follows = nodes_.follows_cache[i] != 0;
    const std::string name = n.op_label();
    auto& ops = s.ops[d];
    auto it = std::find_if(ops.begin(), ops.end(), [&](const PlacementSummary::OpCount& m) {
      return m.op == name && m.dtype == dtype && m.follows_cache == follows;
    });
    if (it == ops.end()) it = ops.insert(ops.end(), {name, dtype, 0, follows});
    ++it->nodes;
  }
  s.segments = static_cast<int64_t>(segments_.size());
  const StepDims one{1, 1, 1, 1};
  for (const Mirror& m : mirrors_) s.bytes_moved_per_token += tensor_bytes(m.tensor, one);
  return s;
}

}  // namespace tessera
