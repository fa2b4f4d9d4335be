// KV_WRITE reference kernel.
#include "backends/cpu/ops/kv_write.h"

#include "core/tensor/dtype.h"

namespace tessera::cpu {
namespace {
constexpr const char* kOp = "kv_write";
}

void kv_write_ref(CpuDevice&, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const TensorView x = input(call, 0, kOp, "x");        // [T, n_kv_heads * head_dim] f32
  const TensorView slot = input(call, 1, kOp, "slot");  // [T] i32
  const TensorView cache = output(call, kOp);           // [n_blocks, block_size, width]
  const auto& p = params_of<tsr_kv_write_params>(call, kOp);
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  expect_dtype(slot, TSR_DTYPE_I32, kOp, "slot");
  if (cache.dtype != TSR_DTYPE_F32 && cache.dtype != TSR_DTYPE_F16) {
    fail(kOp, "cache is " + std::string(dtype_label(cache.dtype)) + ", expected f32 or f16");
  }
  const int64_t width = static_cast<int64_t>(p.n_kv_heads) * p.head_dim;
  if (p.n_kv_heads <= 0 || p.head_dim <= 0 || p.block_size <= 0) {
    fail(kOp, "n_kv_heads, head_dim and block_size must be positive");
  }
  if (cache.ndim != 3 || cache.shape[1] != p.block_size || cache.shape[2] != width) {
    fail(kOp, "cache has shape " + shape_label(cache) + ", expected [n_blocks, " +
                  std::to_string(p.block_size) + ", " + std::to_string(width) + "]");
  }
  if (x.cols() != width) {
    fail(kOp, "x has " + std::to_string(x.cols()) + " columns but n_kv_heads * head_dim = " +
                  std::to_string(width));
  }
  const int64_t n_tokens = x.rows();
  expect_vector(slot, n_tokens, kOp, "slot");

  const int64_t n_slots = cache.shape[0] * cache.shape[1];
  const int32_t* slots = slot.as<const int32_t>();
  for (int64_t t = 0; t < n_tokens; ++t) {
    if (slots[t] < 0 || slots[t] >= n_slots) {
      fail(kOp, "slot[" + std::to_string(t) + "] = " + std::to_string(slots[t]) +
                    " is outside the cache's " + std::to_string(n_slots) + " rows");
    }
  }
  for (int64_t t = 0; t < n_tokens; ++t) {
    quantize_row(static_cast<DType>(cache.dtype), x.row<const float>(t),
                 cache.as<std::byte>() + slots[t] * cache.row_bytes(), width);
  }
}

}  // namespace tessera::cpu
