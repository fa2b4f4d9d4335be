// KV_WRITE: x [T, n_kv_heads * head_dim] f32 into rows slot[t] of the cache
// [n_blocks, block_size, width] (f32, f16 or q8_0). The slots are read back and checked
// on the host before the launch, so a slot outside the cache is an error naming it.
#include <string>
#include <vector>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

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
  const int64_t n_tokens = kit::check_kv_write(x, slot, cache, p);
  device.activate();
  const std::vector<int32_t> slots = read_back_i32(device, slot, kOp);
  kit::check_row_ids(slots.data(), n_tokens, cache.shape[0] * cache.shape[1], kOp, "slot", "cache");
  launch_kv_write(cache.dtype, x.as<const float>(), slot.as<const int32_t>(), cache.as<uint8_t>(), cache.row_bytes(),
                  n_tokens, x.cols(), device.stream());
}

}  // namespace tessera::cuda
