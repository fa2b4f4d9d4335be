// The entry points every kernel variant (isa_target.h) provides, gathered in one table
// per instruction set (isa_table.cpp); isa_dispatch.cpp calls the table of isa_in_use().
#pragma once

#include "backends/cpu/device.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/matmul.h"

namespace tessera::cpu {

struct IsaKernels {
  void (*matmul)(CpuDevice& device, const MatmulArgs& args);
  void (*attention)(CpuDevice& device, const AttentionArgs& args);
  const char* (*quant_prefill_path)();
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
}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
