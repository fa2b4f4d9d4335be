// KV_WRITE reference kernel.
#include "backends/cpu/ops/kv_write.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <tessera/kit/op_params.h>

#include <tessera/kit/half.h>
#include <tessera/kit/kv_quant.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/kit/quantize.h>

namespace tessera::cpu {
namespace {
constexpr const char* kOp = "kv_write";
}

void quantize_kv_row_q8_0(const float* x, std::byte* dst, int64_t n) {
  for (int64_t b = 0; b < n / kQ8BlockElems; ++b) {
    const float* xb = x + b * kQ8BlockElems;
    std::byte* block = dst + b * static_cast<int64_t>(sizeof(BlockQ8_0));
    float amax = 0.0f;
    for (int j = 0; j < kQ8BlockElems; ++j) amax = std::fmax(amax, std::fabs(xb[j]));
    const uint16_t d_bits = kit::kv_q8_0_scale_bits(amax);
    const float inv = kit::kv_q8_0_inverse(d_bits);
    std::memcpy(block, &d_bits, sizeof d_bits);
    for (int j = 0; j < kQ8BlockElems; ++j) {
      block[sizeof d_bits + static_cast<size_t>(j)] = static_cast<std::byte>(kit::kv_q8_0_code(xb[j], inv));
    }
  }
}

void kv_write_ref(CpuDevice&, const tsr_op_call& call) {
  expect_input_count(call, 2, 2, kOp);
  const TensorView x = input(call, 0, kOp, "x");        // [T, n_kv_heads * head_dim] f32
  const TensorView slot = input(call, 1, kOp, "slot");  // [T] i32
  const TensorView cache = output(call, kOp);           // [n_blocks, block_size, width]
  const auto& p = params_of<tsr_kv_write_params>(call, kOp);
  expect_dtype(x, TSR_DTYPE_F32, kOp, "x");
  expect_dtype(slot, TSR_DTYPE_I32, kOp, "slot");
  const int64_t width = static_cast<int64_t>(p.n_kv_heads) * p.head_dim;
  if (p.n_kv_heads <= 0 || p.head_dim <= 0 || p.block_size <= 0) {
    fail(kOp, "n_kv_heads, head_dim and block_size must be positive");
  }
  kit::check_kv_cache(cache, kOp, "cache", p.block_size, width);
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
    std::byte* row = cache.as<std::byte>() + slots[t] * cache.row_bytes();
    if (cache.dtype == TSR_DTYPE_Q8_0) {
      quantize_kv_row_q8_0(x.row<const float>(t), row, width);
    } else {
      kit::quantize_row(cache.dtype, x.row<const float>(t), row, width);
    }
  }
}

}  // namespace tessera::cpu
