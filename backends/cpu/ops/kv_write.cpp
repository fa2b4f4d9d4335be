// KV_WRITE reference kernel.
#include "backends/cpu/ops/kv_write.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

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
  const int64_t n_tokens = kit::check_kv_write(x, slot, cache, p);
  const int64_t width = x.cols();
  const int32_t* slots = slot.as<const int32_t>();
  kit::check_row_ids(slots, n_tokens, cache.shape[0] * cache.shape[1], kOp, "slot", "cache");
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
