// The optimised kernels' entries: each checks its call, then runs the copy of the
// instruction set in use (isa.h).
#include "backends/cpu/isa.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/matmul_quant.h"

namespace tessera::cpu {
namespace {

const IsaKernels* pick() {
  switch (isa_in_use()) {
#if defined(TESSERA_CPU_BUILT_AVX512)
    case CpuIsa::kAvx512: return &isa_avx512::kKernels;
#endif
#if defined(TESSERA_CPU_BUILT_AVX2)
    case CpuIsa::kAvx2: return &isa_avx2::kKernels;
#endif
    default: return &isa_portable::kKernels;
  }
}

}  // namespace

const IsaKernels& isa_kernels() {
  static const IsaKernels* const kernels = pick();
  return *kernels;
}

void matmul_fast(CpuDevice& device, const tsr_op_call& call) { isa_kernels().matmul(device, check_matmul(call)); }

void matmul_checked(CpuDevice& device, const MatmulArgs& a) { isa_kernels().matmul(device, a); }

void attention_fast(CpuDevice& device, const tsr_op_call& call) {
  isa_kernels().attention(device, check_attention(call));
}

const char* quant_prefill_path() { return isa_kernels().quant_prefill_path(); }

const char* bf16_prefill_path() { return isa_kernels().bf16_prefill_path(); }

void rms_norm_fast(CpuDevice& device, const tsr_op_call& call) {
  isa_kernels().rms_norm(device, check_norm(call, "rms_norm", 2, 2));
}

void add_fast(CpuDevice& device, const tsr_op_call& call) { isa_kernels().add(device, check_binary_call(call, "add")); }

void mul_fast(CpuDevice& device, const tsr_op_call& call) { isa_kernels().mul(device, check_binary_call(call, "mul")); }

void swiglu_fast(CpuDevice& device, const tsr_op_call& call) { isa_kernels().swiglu(device, check_swiglu(call)); }

}  // namespace tessera::cpu
