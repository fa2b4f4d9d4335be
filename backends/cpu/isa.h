// The instruction-set levels the CPU kernels are built for, and the one this process
// runs. The optimised kernels (matmul, attention, activation quantisation) are compiled
// once per level, each copy in its own namespace (isa_target.h); the processor and the
// OS decide at run time which copy runs, so one build runs on any x86-64 and uses the
// best path present.
//   portable: plain C++, any processor
//   avx2:     AVX2, FMA, F16C (x86-64-v3)
//   avx512:   AVX-512 F/BW/DQ/VL/VNNI; its block-format prefill also uses AMX int8 tiles
//             where the processor has them and Linux grants them (amx_support.h), its
//             bf16 prefill AMX-BF16 tiles or else AVX512-BF16 where the processor has
//             them (matmul_bf16.h)
// TESSERA_CPU_ISA=portable|avx2|avx512 caps the level, so tests run each copy in turn.
#pragma once

#include <string>

namespace tessera::cpu {

enum class CpuIsa : int { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// "portable", "avx2", "avx512".
const char* isa_name(CpuIsa isa);

// The highest level this build has a copy of.
CpuIsa isa_built();

// The highest level the processor and the OS support (cpuid, XCR0), whether built or not.
CpuIsa isa_supported();

// Whether the processor has AVX512-BF16 (cpuid leaf 7 subleaf 1) and the OS saves the
// AVX-512 state.
bool cpu_has_avx512_bf16();

// The level the kernels run: min(built, supported), lowered by TESSERA_CPU_ISA. Chosen
// once per process.
CpuIsa isa_in_use();

// Why isa_in_use() is what it is, for humans: "avx2 (TESSERA_CPU_ISA=avx2; the
// processor has avx512)", "avx512".
const std::string& isa_choice();

}  // namespace tessera::cpu
