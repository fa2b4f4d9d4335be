// Runs a compiled graph on a device: places the weights and the KV cache pages,
// plans the activations of each step in one arena, and calls a kernel per node.
// With a fallback, the nodes the device has no kernel for run on the fallback device
// instead: each device holds the weights its nodes read and an arena of its own, and
// the activations crossing between them are copied at the seams (run of nodes on one
// device: a segment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/exec/memory_plan.h"
#include "core/exec/node_placement.h"
#include "core/exec/step_batch.h"
#include "core/graph/graph.h"
#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/util/error.h"
#include "core/weights/weight_file.h"

namespace tessera {

// What verify mode throws when an op's output differs from the reference's: the run
// must stop there (it is not a failure of the request being computed).
class VerifyError : public Error {
 public:
  using Error::Error;
};

// Another device and its kernels: where the nodes the main device cannot run go (a
// fallback), or what every op is checked against (a reference, verify mode).
struct BackendTarget {
  std::shared_ptr<Device> device;
  const KernelRegistry* registry = nullptr;  // must outlive the executor's construction
};

// What verify mode has checked so far.
struct VerifyReport {
  std::string reference;    // the reference device
  int64_t steps = 0;        // steps whose every op was checked
  int64_t ops = 0;          // op outputs compared
  double worst_ratio = 0;   // largest error as a fraction of its tolerance (< 1: all within)
  std::string worst;        // that op, described
  // The first op whose output held NaN or an infinity, where it holds one: "step 0, node
  // 12 (rms_norm) at llama.tsr:44:9, element 0 is NaN (the reference's too)". Empty while none.
  std::string first_non_finite;
};

// What runs where, for messages and `tessera check`.
struct PlacementSummary {
  struct OpCount {
    std::string op;  // "rms_norm", or a declared op's name
    DType dtype;
    int64_t nodes = 0;
    bool follows_cache = false;  // on the fallback though the main device has the kernel: beside its KV cache
  };
  std::vector<std::string> devices;       // names, the main device first
  std::vector<int64_t> nodes;             // [devices] nodes each runs
  std::vector<std::vector<OpCount>> ops;  // [devices] the (op, dtype) pairs each runs, in graph order
  int64_t segments = 0;              // runs of nodes on one device, per step
  uint64_t bytes_moved_per_token = 0;  // activations copied between devices, one-token step
};

class GraphExecutor {
 public:
  // `graph` and `weights` must outlive the executor. Weights are mapped zero-copy when
  // the device can read host memory, copied otherwise. Throws tessera::Error when a
  // node has no kernel on the device (nor on the fallback, when one is given) or a
  // buffer cannot be allocated.
  // With a `reference`, every op of every step also runs there on the same inputs (the
  // values the devices under test computed), its output is compared within
  // op_tolerance, and run() throws VerifyError describing the first op that
  // differs: step, node, DSL origin, shape, dtype, errors. The reference keeps its own
  // weights, KV cache (written by its own kv_write) and activations.
  GraphExecutor(const Graph& graph, const WeightFile& weights, std::shared_ptr<Device> device,
                const KernelRegistry& registry, KvCacheShape kv, const BackendTarget* fallback = nullptr,
                const BackendTarget* reference = nullptr);

  // Runs one step; `logits` receives [output_rows.size(), n_vocab] row-major.
  void run(const StepBatch& batch, std::vector<float>* logits);

  // Copies K/V cache row `src_block` into `dst_block` for every layer (copy-on-write).
  void copy_kv_block(int32_t src_block, int32_t dst_block);

  // The KV cache as the devices hold it, one cache tensor (a layer's K or V) at a
  // time: blocks [first, first + count) of cache tensor `k`, 0 <= k < n_cache_tensors(),
  // kv_block_bytes(k) bytes per block. Throws for a range outside the cache.
  int32_t n_cache_tensors() const { return static_cast<int32_t>(cache_.size()); }
  uint64_t kv_block_bytes(int32_t k) const;
  DType kv_dtype(int32_t k) const;
  int64_t kv_row_elems(int32_t k) const;  // elements of one token's row (kv heads * head dim)
  void read_kv_blocks(int32_t k, int32_t first, int32_t count, void* dst) const;
  void write_kv_blocks(int32_t k, int32_t first, int32_t count, const void* src);

  const Device& device() const { return *devices_[0]; }  // the main device
  PlacementSummary placement() const;
  const VerifyReport* verify_report() const { return ref_ >= 0 ? &verify_ : nullptr; }
  uint64_t weight_bytes() const { return weight_bytes_; }
  uint64_t kv_cache_bytes() const { return kv_bytes_; }
  uint64_t arena_bytes() const;
  const KvCacheShape& kv_shape() const { return kv_; }

 private:
  struct StepDims {
    int64_t tokens = 0, outputs = 0, seqs = 0, max_blocks = 0;
  };
  struct Placement {
    tsr_buffer buffer = nullptr;
    uint64_t offset = 0;
    std::byte* host_base = nullptr;  // the buffer's host address, null if not host-visible
    const DeviceBuffer* owner = nullptr;
  };
  // An activation read on a device other than its home: a copy there, filled before
  // the first segment on that device that reads it.
  struct Mirror {
    int tensor = -1;
    int device = -1;
    int first_reader = -1;  // node
    int last_reader = -1;   // node
  };
  struct Segment {
    int device = 0;
    size_t first = 0, end = 0;   // nodes [first, end)
    std::vector<size_t> fills;   // mirrors to fill before it runs
  };
  // A placement at `offset` in `buffer`, with the buffer's host address when it has one.
  static Placement place_in(const DeviceBuffer& buffer, uint64_t offset);

  void plan_segments();
  void place_weights(const WeightFile& weights);
  const void* transposed_copy(const TensorView& view, const std::string& path);
  const void* widened_copy(const TensorView& view);
  void allocate_cache();
  // Where blocks [first, first + count) of cache tensor k start: the index of their
  // buffer in owned_, and the byte offset in it.
  size_t cache_range(int32_t k, int32_t first, int32_t count, uint64_t* offset) const;
  int64_t resolve_dim(int64_t d, const StepDims& dims) const;
  tsr_tensor describe(int tensor, int device, const StepDims& dims) const;
  uint64_t tensor_bytes(int tensor, const StepDims& dims) const;
  void plan_activations(const StepDims& dims);
  void plan_arena(int device, const StepDims& dims);
  // From the node writing each activation to the last node reading it, for those homed
  // on `device` (all when device < 0); `ids` receives their tensors, in the same order.
  std::vector<BufferLifetime> activation_lifetimes(int device, const StepDims& dims, std::vector<int>* ids) const;
  void upload_inputs(const StepBatch& batch);
  void fill_mirror(const Mirror& m, const StepDims& dims);
  void run_nodes(int device, size_t first, size_t end, const std::vector<RegisteredKernel>& kernels,
                 const StepBatch& batch, const StepDims& dims);
  // Verify mode (graph_executor_verify.cpp).
  void add_reference(const BackendTarget& reference);
  void plan_reference_arena(const StepDims& dims);
  void verify_node(size_t i, const StepBatch& batch, const StepDims& dims);
  void note_non_finite(size_t node, int device, std::span<const float> got, std::span<const float> want);
  std::vector<float> output_values(size_t node, int device, const StepBatch& batch, const StepDims& dims) const;
  Placement& at(int device, int tensor) { return placement_[static_cast<size_t>(device)][static_cast<size_t>(tensor)]; }
  const Placement& at(int device, int tensor) const {
    return placement_[static_cast<size_t>(device)][static_cast<size_t>(tensor)];
  }

  const Graph& graph_;
  std::vector<std::shared_ptr<Device>> devices_;  // the main device, the fallback, the reference
  size_t n_targets_ = 1;                          // of them, the ones nodes are placed on
  KvCacheShape kv_;
  NodePlacement nodes_;
  // The registries' plugins (kernel plugins included), kept loaded for the kernels.
  std::vector<std::shared_ptr<const PluginLibrary>> kernel_plugins_;
  std::vector<std::vector<Placement>> placement_;  // [device][tensor] (activations: per step)
  std::vector<Mirror> mirrors_;
  std::vector<Segment> segments_;
  // Transposed or widened weights; declared before owned_ so the buffers wrapping them go first.
  std::vector<std::vector<uint8_t>> converted_;
  std::vector<DeviceBuffer> owned_;                // weights, cache, step inputs
  std::map<std::pair<int, int>, size_t> input_buffer_;  // (device, step input tensor) -> index in owned_
  struct CacheTensor {
    int tensor = -1;          // in the graph
    size_t buffer = 0;        // index in owned_
    uint64_t block_bytes = 0;
    size_t ref_buffer = 0;    // the reference's copy, in verify mode
  };
  std::vector<CacheTensor> cache_;                 // in graph order
  std::vector<std::unique_ptr<DeviceBuffer>> arenas_;  // [device]
  std::vector<uint8_t> staging_;                   // mirror copies pass through here
  StepDims planned_{-1, -1, -1, -1};
  int ref_ = -1;                                   // the reference's index in devices_, verify mode
  std::vector<RegisteredKernel> ref_kernels_;      // [nodes] on the reference
  VerifyReport verify_;
  uint64_t weight_bytes_ = 0;
  uint64_t kv_bytes_ = 0;
};

}  // namespace tessera
