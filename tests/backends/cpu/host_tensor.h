// Test helpers for calling CPU kernels directly: tensors backed by their own host
// buffer, a call builder that goes through the plugin's exception boundary, random
// inputs and a tolerance comparison.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

#include "backends/cpu/buffer.h"
#include "backends/cpu/device.h"
#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu::test {

// A tensor that owns its (zero-filled) host storage. Movable; the descriptor stays
// valid because the storage lives on the heap.
class HostTensor {
 public:
  HostTensor(tsr_dtype dtype, std::vector<int64_t> shape);

  // F32 or I32 tensors from values in row-major order.
  static HostTensor f32(std::vector<int64_t> shape, const std::vector<float>& values);
  static HostTensor i32(std::vector<int64_t> shape, const std::vector<int32_t>& values);
  // A tensor of `dtype` holding `values` converted (quantised) row by row.
  static HostTensor from_f32(tsr_dtype dtype, std::vector<int64_t> shape,
                             const std::vector<float>& values);

  const tsr_tensor& desc() const { return desc_; }
  tsr_tensor& desc() { return desc_; }
  std::byte* bytes() { return storage_->bytes.data(); }
  float* f32_data() { return reinterpret_cast<float*>(bytes()); }
  int64_t elements() const;
  // The contents converted to f32 (dequantised).
  std::vector<float> to_f32() const;

 private:
  struct Storage {
    std::vector<std::byte> bytes;
    tsr_buffer_impl buffer{};
  };
  std::unique_ptr<Storage> storage_;
  tsr_tensor desc_{};
};

// Runs a kernel body behind the plugin's boundary guard and returns its status; the
// message of a failure is then device.last_error().
tsr_status run_kernel(CpuDevice& device, KernelBody body, tsr_op op, const void* params,
                      const std::vector<const HostTensor*>& inputs, HostTensor& out);

// n values uniform in [lo, hi), from a fixed seed.
std::vector<float> random_values(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
// n uniform ids in [0, bound), reproducible from seed.
std::vector<int32_t> random_ids(size_t n, int32_t bound, uint32_t seed);
// A MOE_ROUTE output [tokens, 2k]: per token k distinct experts of `experts` drawn from
// seed, then k weights of 1 / k.
std::vector<float> random_route(int64_t tokens, int64_t k, int32_t experts, uint32_t seed);

// Largest |a[i] - b[i]| divided by max(largest |b[i]|, 1e-30): the error relative to
// the reference's scale (outputs near zero do not inflate it).
double relative_error(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace tessera::cpu::test
