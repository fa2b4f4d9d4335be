// The entry table of one kernel variant; compiled once per instruction set (isa_target.h).
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/matmul_quant.h"

#include "backends/cpu/isa_target.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {

const IsaKernels kKernels = {&matmul_checked, &attention_checked, &quant_prefill_path, &bf16_prefill_path,
                             &rms_norm_checked, &add_checked, &mul_checked, &swiglu_checked};

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
