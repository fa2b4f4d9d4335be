// KV_WRITE: x [T, n_kv_heads * head_dim] f32 into rows slot[t] of the cache
// [n_blocks, block_size, width] (f32, f16 or q8_0). The slots are read back and checked
// on the host before the launch, so a slot outside the cache is an error naming it.
#include <string>
#include <vector>

#include <tessera/kit/op_params.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/ops/launch.h"
#include "backends/cuda/ops/ops.h"
#include "backends/cuda/ops/read_back.h"
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
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  expect_dtype(slot, TSR_DTYPE_I32, kOp, "slot");
  if (p.n_kv_heads <= 0 || p.head_dim <= 0 || p.block_size <= 0) {
    fail(kOp, "n_kv_heads, head_dim and block_size must be positive");
  }
  const int64_t width = static_cast<int64_t>(p.n_kv_heads) * p.head_dim;
  kit::check_kv_cache(cache, kOp, "cache", p.block_size, width);
  if (x.cols() != width) {
    fail(kOp, "x has " + std::to_string(x.cols()) + " columns but n_kv_heads * head_dim = " + std::to_string(width));
  }
  const int64_t n_tokens = x.rows();
  kit::expect_vector(slot, n_tokens, kOp, "slot");
  device.activate();
  const std::vector<int32_t> slots = read_back_i32(device, slot, kOp);
  const int64_t n_slots = cache.shape[0] * cache.shape[1];
  for (int64_t t = 0; t < n_tokens; ++t) {
    if (slots[t] < 0 || slots[t] >= n_slots) {
      fail(kOp, "slot[" + std::to_string(t) + "] = " + std::to_string(slots[t]) + " is outside the cache's " +
                    std::to_string(n_slots) + " rows");
    }
  }
  launch_kv_write(cache.dtype, x.as<const float>(), slot.as<const int32_t>(), cache.as<uint8_t>(), cache.row_bytes(),
                  n_tokens, width, device.stream());
}

}  // namespace tessera::cuda
