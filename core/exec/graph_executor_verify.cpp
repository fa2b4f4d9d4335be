// Verify mode of the GraphExecutor: every node also runs on a reference device, fed
// the inputs the device under test computed, and the two outputs are compared.
#include <algorithm>
#include <cmath>
#include <span>
#include <cstdio>
#include <string>

#include "core/exec/graph_executor.h"
#include "core/exec/op_check.h"
#include "core/util/error.h"

namespace tessera {
namespace {

std::string shape_text(const tsr_tensor& t) {
  std::string s = "[";
  for (int k = 0; k < t.ndim; ++k) s += (k ? ", " : "") + std::to_string(t.shape[k]);
  return s + "]";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

void GraphExecutor::add_reference(const BackendTarget& reference) {
  ref_ = static_cast<int>(devices_.size());
  devices_.push_back(reference.device);
  for (const auto& p : reference.registry->plugins()) kernel_plugins_.push_back(p);
  verify_.reference = reference.device->name();
  ref_kernels_.reserve(graph_.nodes().size());
  for (size_t i = 0; i < graph_.nodes().size(); ++i) {
    const GraphNode& n = graph_.nodes()[i];
    const RegisteredKernel* k = reference.registry->find(n.op_ref(), key_dtype(graph_, n), reference.device->plugin());
    if (!k) {
      throw Error("verify: the reference backend '" + reference.device->plugin().name() + "' has no kernel for " +
                  n.op_label() + " with " + std::string(dtype_name(key_dtype(graph_, n))) +
                  " data, needed by " + describe_node(n, i));
    }
    ref_kernels_.push_back(*k);
  }
}

void GraphExecutor::plan_reference_arena(const StepDims& dims) {
  // Every activation, from the node writing it to the last reading it (the inputs are
  // overwritten with the tested device's values before each node).
  std::vector<int> ids;
  const std::vector<BufferLifetime> lifetimes = activation_lifetimes(-1, dims, &ids);
  const MemoryPlan plan = plan_memory(lifetimes);
  auto& arena = arenas_[static_cast<size_t>(ref_)];
  if (!arena || arena->size() < plan.arena_bytes) {
    arena.reset();
    arena = std::make_unique<DeviceBuffer>(
        DeviceBuffer::alloc(devices_[static_cast<size_t>(ref_)], plan.arena_bytes, "reference activations"));
  }
  for (size_t k = 0; k < ids.size(); ++k) at(ref_, ids[k]) = place_in(*arena, plan.offsets[k]);
}

// The output of `node` as floats: the whole activation, or for a KV_WRITE the cache
// rows this step wrote.
std::vector<float> GraphExecutor::output_values(size_t node, int device, const StepBatch& batch,
                                                const StepDims& dims) const {
  const GraphNode& n = graph_.nodes()[node];
  const GraphTensor& t = graph_.tensor(n.output);
  std::vector<uint8_t> bytes;
  int64_t elems = 0;
  if (t.role == TensorRole::Cache) {
    const int64_t width = t.shape.back();
    const auto row = static_cast<uint64_t>(dtype_row_bytes(t.dtype, width));
    const auto c = std::find_if(cache_.begin(), cache_.end(), [&](const CacheTensor& e) { return e.tensor == n.output; });
    const DeviceBuffer& buf = owned_[device == ref_ ? c->ref_buffer : c->buffer];
    bytes.resize(row * batch.kv_slots.size());
    for (size_t k = 0; k < batch.kv_slots.size(); ++k) {
      buf.read(row * static_cast<uint64_t>(batch.kv_slots[k]), bytes.data() + row * k, row);
    }
    elems = width * static_cast<int64_t>(batch.kv_slots.size());
  } else {
    const uint64_t size = tensor_bytes(n.output, dims);
    bytes.resize(size);
    arenas_[static_cast<size_t>(device)]->read(at(device, n.output).offset, bytes.data(), size);
    const tsr_tensor d = describe(n.output, device, dims);
    elems = 1;
    for (int k = 0; k < d.ndim; ++k) elems *= d.shape[k];
  }
  std::vector<float> values(static_cast<size_t>(elems));
  if (t.dtype == DType::F32) {
    std::copy_n(reinterpret_cast<const float*>(bytes.data()), values.size(), values.data());
  } else {
    dequantize_row(t.dtype, bytes.data(), values.data(), elems);
  }
  return values;
}

// Where a NaN or an infinity first appears in a run, for the sampler's "logit is NaN":
// an op whose reference output has it too computed it from its inputs or weights (a bad
// weights file); one whose reference does not is a kernel fault, which verify_node reports.
void GraphExecutor::note_non_finite(size_t node, int device, std::span<const float> got,
                                    std::span<const float> want) {
  const auto bad = std::find_if(got.begin(), got.end(), [](float v) { return !std::isfinite(v); });
  if (bad == got.end()) return;
  const auto k = static_cast<size_t>(bad - got.begin());
  const GraphNode& n = graph_.nodes()[node];
  verify_.first_non_finite = "step " + std::to_string(verify_.steps) + ", " + describe_node(n, node) +
                             (n.origin.empty() ? "" : " at " + n.origin) + " on " +
                             devices_[static_cast<size_t>(device)]->name() + ", element " + std::to_string(k) +
                             " is " + (std::isnan(*bad) ? std::string("NaN") : *bad > 0 ? "+inf" : "-inf") +
                             (k < want.size() && !std::isfinite(want[k]) ? " (the reference's too)" : "");
}

void GraphExecutor::verify_node(size_t i, const StepBatch& batch, const StepDims& dims) {
  const GraphNode& n = graph_.nodes()[i];
  const int d = nodes_.node_target[i];
  std::vector<uint8_t> staging;
  for (int in : n.inputs) {
    if (graph_.tensor(in).role != TensorRole::Activation) continue;
    const uint64_t bytes = tensor_bytes(in, dims);
    staging.resize(bytes);
    arenas_[static_cast<size_t>(d)]->read(at(d, in).offset, staging.data(), bytes);
    arenas_[static_cast<size_t>(ref_)]->write(at(ref_, in).offset, staging.data(), bytes);
  }
  run_nodes(ref_, i, i + 1, ref_kernels_, batch, dims);
  const std::vector<float> got = output_values(i, d, batch, dims);
  const std::vector<float> want = output_values(i, ref_, batch, dims);
  if (verify_.first_non_finite.empty()) note_non_finite(i, d, got, want);
  const OutputDifference diff = compare_outputs(got, want);
  const OpTolerance tol = op_tolerance(n.op, key_dtype(graph_, n));
  ++verify_.ops;
  const std::string where = describe_node(n, i) + (n.origin.empty() ? "" : " at " + n.origin);
  const double allowed = tol.atol + tol.rtol * diff.scale;
  const double ratio = diff.non_finite ? 1e300 : diff.max_abs / allowed;
  if (ratio > verify_.worst_ratio) {
    verify_.worst_ratio = ratio;
    verify_.worst = where + ": max relative error " + number(diff.max_rel) + " (tolerance " + number(tol.rtol) + ")";
  }
  if (within(diff, tol)) return;
  const GraphTensor& t = graph_.tensor(n.output);
  const tsr_tensor shape = describe(n.output, d, dims);
  const auto w = static_cast<size_t>(std::max<int64_t>(diff.worst, 0));
  throw VerifyError("verify: step " + std::to_string(verify_.steps) + ", " + where + ": output '" + t.name + "' " +
              (t.role == TensorRole::Cache ? "(the cache rows of this step) " : shape_text(shape) + " ") +
              std::string(dtype_name(t.dtype)) + " on " + devices_[static_cast<size_t>(d)]->name() +
              " differs from the reference " + verify_.reference + ": " +
              (diff.non_finite ? "non-finite values, first at element " + std::to_string(diff.worst)
                               : "max absolute error " + number(diff.max_abs) + " at element " +
                                     std::to_string(diff.worst) + " (got " + number(got[w]) + ", want " +
                                     number(want[w]) + "), max relative error " + number(diff.max_rel) +
                                     " of the output's scale " + number(diff.scale)) +
              "; tolerance " + number(tol.rtol) + " relative, " + number(tol.atol) + " absolute");
}

}  // namespace tessera
