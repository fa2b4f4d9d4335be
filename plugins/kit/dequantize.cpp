// Reference dequantisation of every dtype (see dequantize.h): the per-element formulas
// of block_values.h, evaluated as gguf-py evaluates them so the results match bit for
// bit. The kit is compiled with -ffp-contract=off so that no multiply-add is fused.
#include <tessera/kit/dequantize.h>

#include <cstring>
#include <string>

#include <tessera/kit/block_values.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/half.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {
namespace {

// Every element of one block of `Block` (kQK or kQKK of them).
template <class Block, int N>
void block(const void* p, float* y) {
  const Block& b = *static_cast<const Block*>(p);
  for (int i = 0; i < N; ++i) y[i] = block_value(b, i);
}

}  // namespace

void dequantize_block(tsr_dtype t, const void* p, float* y) {
  switch (t) {
    case TSR_DTYPE_Q8_0: return block<BlockQ8_0, kQK>(p, y);
    case TSR_DTYPE_Q4_0: return block<BlockQ4_0, kQK>(p, y);
    case TSR_DTYPE_Q4_1: return block<BlockQ4_1, kQK>(p, y);
    case TSR_DTYPE_Q5_0: return block<BlockQ5_0, kQK>(p, y);
    case TSR_DTYPE_Q5_1: return block<BlockQ5_1, kQK>(p, y);
    case TSR_DTYPE_IQ4_NL: return block<BlockIQ4_NL, kQK>(p, y);
    case TSR_DTYPE_Q2_K: return block<BlockQ2_K, kQKK>(p, y);
    case TSR_DTYPE_Q3_K: return block<BlockQ3_K, kQKK>(p, y);
    case TSR_DTYPE_Q4_K: return block<BlockQ4_K, kQKK>(p, y);
    case TSR_DTYPE_Q5_K: return block<BlockQ5_K, kQKK>(p, y);
    case TSR_DTYPE_Q6_K: return block<BlockQ6_K, kQKK>(p, y);
    case TSR_DTYPE_IQ4_XS: return block<BlockIQ4_XS, kQKK>(p, y);
    default: break;
  }
  fail("dequantize", std::string(dtype_traits(t).name) + " is not a block format");
}

void dequantize_row(tsr_dtype t, const void* src, float* dst, int64_t n) {
  const DTypeTraits& tr = dtype_traits(t);
  if (!is_known_dtype(t) || t == TSR_DTYPE_I32) {
    fail("dequantize", "cannot convert " + std::string(tr.name) + " to f32");
  }
  if (n % tr.block_elems != 0) {
    fail("dequantize", "a row of " + std::to_string(n) + " elements is not a whole number of " +
                           std::string(tr.name) + " blocks of " + std::to_string(tr.block_elems));
  }
  const auto* bytes = static_cast<const uint8_t*>(src);
  switch (t) {
    case TSR_DTYPE_F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
      return;
    case TSR_DTYPE_F16:
    case TSR_DTYPE_BF16: {
      const bool f16 = t == TSR_DTYPE_F16;
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, sizeof h);
        dst[i] = f16 ? f16_to_f32(h) : bf16_to_f32(h);
      }
      return;
    }
    default:
      for (int64_t b = 0; b < n / tr.block_elems; ++b) {
        dequantize_block(t, bytes + b * tr.block_bytes, dst + b * tr.block_elems);
      }
  }
}

}  // namespace tessera::kit
