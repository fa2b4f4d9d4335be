// Prefill MATMUL for bf16 weights on AMX-BF16 tiles or AVX512-BF16 (vdpbf16ps), the best
// the processor has: x is rounded to bf16 once per call and each product is exact in f32,
// so the result differs from the widening path (matmul_fast.cpp) by the rounding of x, at
// most 2^-8 of sum |w x| per output. TESSERA_CPU_BF16=f32 keeps bf16 weights on the
// widening path, =avx512-bf16 off the tiles.
#pragma once

#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

// The bf16 prefill path of the variant in use: "amx-bf16", "avx512-bf16" or "f32"
// (widened weights).
const char* bf16_prefill_path();

}  // namespace tessera::cpu

#if defined(TESSERA_CPU_ISA_NS)
namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// This variant's bf16 prefill path.
const char* bf16_prefill_path();

// out = x w^T for bf16 w on vdpbf16ps; false, having done nothing, where this variant or
// processor has no such path or w is not bf16.
bool matmul_bf16_prefill(ThreadPool& pool, const MatmulArgs& a);

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
