// KV_WRITE: x [T, n_kv_heads * head_dim] f32 into rows slot[t] of the cache
// [n_blocks, block_size, width] (f32, f16 or q8_0). The kernel checks the slots: one
// outside the cache is reported through the error word (kit/device_errors.h) as an
// error naming it, never written.
#include <tessera/kit/device_errors.h>
#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/tensor_args.h"

namespace tessera::cuda {
namespace {

constexpr const char* kOp = "kv_write";

}  // namespace

void kv_write(CudaDevice& device, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const DeviceTensor x = input(call, 0, kOp, "x");        // [T, width] f32
  const DeviceTensor slot = input(call, 1, kOp, "slot");  // [T] i32
  const DeviceTensor cache = output(call, kOp);           // [n_blocks, block_size, width]
  const auto& p = params_of<tsr_kv_write_params>(call, kOp);
  const int64_t n_tokens = kit::check_kv_write(x, slot, cache, p);
  device.activate();
  KvWriteLaunch k{};
  k.dtype = cache.dtype;
  k.x = x.as<const float>();
  k.slots = slot.as<const int32_t>();
  k.cache = cache.as<uint8_t>();
  k.row_bytes = cache.row_bytes();
  k.n_slots = cache.shape[0] * cache.shape[1];
  k.n_tokens = n_tokens;
  k.width = x.cols();
  if (n_tokens == 0 || k.width == 0) return;
  k.errors = device.errors_for(kit::row_id_text(kOp, "slot", "cache", k.n_slots));
  launch_kv_write(k, device.stream());
}

}  // namespace tessera::cuda
