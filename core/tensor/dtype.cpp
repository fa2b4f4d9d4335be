// The core's view of the kit's dtype table and conversions; see dtype.h.
#include "core/tensor/dtype.h"

#include <string>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/quantize.h>

#include "core/util/error.h"

namespace tessera {
namespace {

const kit::DTypeTraits& traits_of(DType t) {
  if (!kit::is_known_dtype(to_abi(t))) {
    throw Error("unknown dtype code " + std::to_string(static_cast<int>(t)));
  }
  return kit::dtype_traits(to_abi(t));
}

// Refuses I32 with `what` ("i32 to f32") and a partial block, in the core's error type.
void check_convertible(DType t, int64_t n, const char* what) {
  if (t == DType::I32) throw Error(std::string("cannot convert ") + what);
  dtype_row_bytes(t, n);  // validates n
}

}  // namespace

int64_t dtype_block_elems(DType t) { return traits_of(t).block_elems; }

int64_t dtype_block_bytes(DType t) { return traits_of(t).block_bytes; }

bool dtype_is_quantized(DType t) { return traits_of(t).quantized; }

int64_t dtype_row_bytes(DType t, int64_t n) {
  const kit::DTypeTraits& tr = traits_of(t);
  if (n % tr.block_elems != 0) {
    throw Error("a row of " + std::to_string(n) + " elements is not a whole number of " +
                std::string(tr.name) + " blocks of " + std::to_string(tr.block_elems));
  }
  return n / tr.block_elems * tr.block_bytes;
}

std::string_view dtype_name(DType t) {
  return kit::is_known_dtype(to_abi(t)) ? kit::dtype_traits(to_abi(t)).name : "?";
}

bool dtype_from_name(std::string_view name, DType* out) {
  tsr_dtype t;
  if (!kit::dtype_from_name(name, &t)) return false;
  *out = static_cast<DType>(t);
  return true;
}

void dequantize_row(DType t, const void* src, float* dst, int64_t n) {
  check_convertible(t, n, "i32 to f32");
  kit::dequantize_row(to_abi(t), src, dst, n);
}

void quantize_row(DType t, const float* src, void* dst, int64_t n) {
  check_convertible(t, n, "f32 to i32");
  kit::quantize_row(to_abi(t), src, dst, n);
}

}  // namespace tessera
