// Switches the rest of a kernel-variant source to its instruction set. A variant source
// is compiled once per level (CMakeLists.txt) with TESSERA_CPU_ISA_LEVEL (0 portable,
// 1 avx2, 2 avx512) and TESSERA_CPU_ISA_NS (isa_portable, isa_avx2, isa_avx512), and
//  1. includes every header that is not ISA-specific (the standard library, the kit,
//     thread_pool.h, matmul.h ...) first,
//  2. then this header,
//  3. then the ISA-specific headers (simd.h, quant_*.h), and puts its own code in
//     namespace tessera::cpu::TESSERA_CPU_ISA_NS.
// Why: the target pragma gives only the functions defined after it the wider instruction
// set. An inline function of a shared header compiled under it would be one weak symbol
// with several bodies, and the linker might keep the AVX-512 one for the portable copy.
// Templates declared before the pragma keep the baseline even when instantiated after it.
// tests/backends/cpu/isa_objects_test.sh checks every variant object for such symbols.
#pragma once

#if !defined(TESSERA_CPU_ISA_LEVEL) || !defined(TESSERA_CPU_ISA_NS)
#error "a kernel-variant source needs TESSERA_CPU_ISA_LEVEL and TESSERA_CPU_ISA_NS (backends/cpu/CMakeLists.txt)"
#endif

#if TESSERA_CPU_ISA_LEVEL >= 1
#if !defined(__x86_64__)
#error "the avx2 and avx512 kernel variants are x86-64 only"
#endif
#include <immintrin.h>  // its intrinsics carry their own target attributes
#endif

// The compilers do not define __AVX2__ and friends under the pragma, so the kernels test
// these instead.
#define TESSERA_CPU_AVX2 (TESSERA_CPU_ISA_LEVEL >= 1)    // AVX2, FMA, F16C
#define TESSERA_CPU_AVX512 (TESSERA_CPU_ISA_LEVEL >= 2)  // AVX-512 F/BW/DQ/VL/VNNI; BF16, AMX int8 if present

// A variant source ends with isa_target_end.h. With g++ the target stays in effect to the
// end of the file, where the templates are instantiated (popping it earlier draws
// -Wpsabi warnings for their vector-returning lambdas); clang needs its push popped.
#if TESSERA_CPU_ISA_LEVEL == 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,f16c,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC target("avx,avx2,fma,f16c,bmi,bmi2")
#endif
#elif TESSERA_CPU_ISA_LEVEL == 2
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,f16c,bmi,bmi2,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512bf16,amx-tile,amx-int8,amx-bf16"))), apply_to = function)
#else
#pragma GCC target("avx,avx2,fma,f16c,bmi,bmi2,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512bf16,amx-tile,amx-int8,amx-bf16")
#endif
#endif
