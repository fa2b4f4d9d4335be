// The entry points every kernel variant (isa_target.h) provides, gathered in one table
// per instruction set (isa_table.cpp); isa_dispatch.cpp calls the table of isa_in_use().
#pragma once

#include "backends/cpu/device.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/norm.h"

namespace tessera::cpu {

struct IsaKernels {
  void (*matmul)(CpuDevice& device, const MatmulArgs& args);
  void (*attention)(CpuDevice& device, const AttentionArgs& args);
  const char* (*quant_prefill_path)();
  const char* (*bf16_prefill_path)();
  void (*rms_norm)(CpuDevice& device, const NormArgs& args);
  void (*add)(CpuDevice& device, const BinaryArgs& args);
  void (*mul)(CpuDevice& device, const BinaryArgs& args);
  void (*swiglu)(CpuDevice& device, const SwigluArgs& args);
};

// The tables of the levels this build has (isa_built()); the portable one always exists.
namespace isa_portable {
extern const IsaKernels kKernels;
}
namespace isa_avx2 {
extern const IsaKernels kKernels;
}
namespace isa_avx512 {
extern const IsaKernels kKernels;
}

// The table of isa_in_use().
const IsaKernels& isa_kernels();

}  // namespace tessera::cpu

#if defined(TESSERA_CPU_ISA_NS)
namespace tessera::cpu::TESSERA_CPU_ISA_NS {
void matmul_checked(CpuDevice& device, const MatmulArgs& a);
void attention_checked(CpuDevice& device, const AttentionArgs& a);
// Prefill attention in tiles (attention_tiled.cpp); false, having done nothing, when the
// step's tokens are not in runs of several per sequence (decode).
bool attention_tiled(CpuDevice& device, const AttentionArgs& a);
void rms_norm_checked(CpuDevice& device, const NormArgs& a);  // elementwise_fast.cpp
void add_checked(CpuDevice& device, const BinaryArgs& a);
void mul_checked(CpuDevice& device, const BinaryArgs& a);
void swiglu_checked(CpuDevice& device, const SwigluArgs& a);
}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
