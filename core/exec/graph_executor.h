// Runs a compiled graph on one device: places the weights and the KV cache pages,
// plans the activations of each step in one arena, and calls a kernel per node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/memory_plan.h"
#include "core/exec/step_batch.h"
#include "core/graph/graph.h"
#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/weights/weight_file.h"

namespace tessera {

class GraphExecutor {
 public:
  // `graph` and `weights` must outlive the executor. Weights are mapped zero-copy when
  // the device can read host memory, copied otherwise. Throws tessera::Error when a
  // node has no kernel on the device or a buffer cannot be allocated.
  GraphExecutor(const Graph& graph, const WeightFile& weights, std::shared_ptr<Device> device,
                const KernelRegistry& registry, KvCacheShape kv);

  // Runs one step; `logits` receives [output_rows.size(), n_vocab] row-major.
  void run(const StepBatch& batch, std::vector<float>* logits);

  // Copies K/V cache row `src_block` into `dst_block` for every layer (copy-on-write).
  void copy_kv_block(int32_t src_block, int32_t dst_block);

  // The KV cache as the device holds it, one cache tensor (a layer's K or V) at a
  // time: blocks [first, first + count) of cache tensor `k`, 0 <= k < n_cache_tensors(),
  // kv_block_bytes(k) bytes per block. Throws for a range outside the cache.
  int32_t n_cache_tensors() const { return static_cast<int32_t>(cache_.size()); }
  uint64_t kv_block_bytes(int32_t k) const;
  DType kv_dtype(int32_t k) const;
  void read_kv_blocks(int32_t k, int32_t first, int32_t count, void* dst) const;
  void write_kv_blocks(int32_t k, int32_t first, int32_t count, const void* src);

  const Device& device() const { return *device_; }
  uint64_t weight_bytes() const { return weight_bytes_; }
  uint64_t kv_cache_bytes() const { return kv_bytes_; }
  uint64_t arena_bytes() const { return arena_ ? arena_->size() : 0; }
  const KvCacheShape& kv_shape() const { return kv_; }

 private:
  struct StepDims {
    int64_t tokens = 0, outputs = 0, seqs = 0, max_blocks = 0;
  };
  struct Placement {
    tsr_buffer buffer = nullptr;
    uint64_t offset = 0;
    std::byte* host_base = nullptr;  // the buffer's host address, null if not host-visible
  };
  // A placement at `offset` in `buffer`, with the buffer's host address when it has one.
  static Placement place_in(const DeviceBuffer& buffer, uint64_t offset);

  void place_weights(const WeightFile& weights);
  const void* transposed_copy(const TensorView& view, const std::string& path);
  const void* widened_copy(const TensorView& view);
  void allocate_cache();
  // Where blocks [first, first + count) of cache tensor k start: the index of their
  // buffer in owned_, and the byte offset in it.
  size_t cache_range(int32_t k, int32_t first, int32_t count, uint64_t* offset) const;
  void resolve_kernels(const KernelRegistry& registry);
  int64_t resolve_dim(int64_t d, const StepDims& dims) const;
  tsr_tensor describe(int tensor, const StepDims& dims) const;
  uint64_t tensor_bytes(int tensor, const StepDims& dims) const;
  void plan_activations(const StepDims& dims);
  void upload_inputs(const StepBatch& batch);

  const Graph& graph_;
  std::shared_ptr<Device> device_;
  KvCacheShape kv_;
  std::vector<RegisteredKernel> kernels_;        // per node
  // The registry's plugins (kernel plugins included), kept loaded for kernels_.
  std::vector<std::shared_ptr<const PluginLibrary>> kernel_plugins_;
  std::vector<Placement> placement_;             // per tensor (activations: per step)
  // Transposed or widened weights; declared before owned_ so the buffers wrapping them go first.
  std::vector<std::vector<uint8_t>> converted_;
  std::vector<DeviceBuffer> owned_;              // weights, cache, step inputs
  std::map<int, size_t> input_buffer_;           // step input tensor -> index in owned_
  struct CacheTensor {
    int tensor = -1;          // in the graph
    size_t buffer = 0;        // index in owned_
    uint64_t block_bytes = 0;
  };
  std::vector<CacheTensor> cache_;               // in graph order
  std::unique_ptr<DeviceBuffer> arena_;
  StepDims planned_{-1, -1, -1, -1};
  uint64_t weight_bytes_ = 0;
  uint64_t kv_bytes_ = 0;
};

}  // namespace tessera
